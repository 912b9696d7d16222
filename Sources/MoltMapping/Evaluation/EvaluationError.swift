/// An error while evaluating an expression: what went wrong, and at which character of the
/// expression.
public struct EvaluationError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var offset: Int

    public init(_ message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    public var description: String { "column \(offset + 1): \(message)" }
}
