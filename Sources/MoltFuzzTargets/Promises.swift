internal import MoltCore

/// What every refusal of hostile input must look like.
enum Promises {
    /// nil when `error` is a ``MoltError`` with one of `codes` that names the input file (and
    /// a line, when `needsLine`); otherwise what is wrong with it.
    static func refusal(_ error: any Error, codes: Set<MoltError.Code>, needsLine: Bool = false) -> String? {
        guard let molt = error as? MoltError else {
            return "threw \(type(of: error)) instead of a MoltError: \(error)"
        }
        guard codes.contains(molt.code) else {
            return "error code \(molt.code.rawValue), expected one of \(codes.map(\.rawValue).sorted()): \(molt)"
        }
        guard let location = molt.location, location.file == FuzzTarget.fileName else {
            return "the error does not name the file: \(molt)"
        }
        if needsLine, (location.line ?? 0) < 1 {
            return "the error gives no line: \(molt)"
        }
        if let column = location.column, column < 1 {
            return "the error gives column \(column): \(molt)"
        }
        if molt.message.isEmpty {
            return "the error has no message"
        }
        return nil
    }
}
