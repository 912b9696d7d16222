/// A lower-level error kept as its description, so that a ``MoltError`` can carry any cause
/// (including non-`Sendable` ones from Foundation) as its ``MoltError/underlying`` error.
public struct DescribedError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }

    public init(_ error: any Error) {
        self.description = String(describing: error)
    }
}
