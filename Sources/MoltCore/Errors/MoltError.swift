public import Foundation

/// The one error type of the Molt library.
///
/// A `MoltError` says what went wrong in one line (``description``), where it happened
/// (``location``, ``entity``, ``property``), what the user can do about it (``recovery``),
/// and carries Core Data's numeric ``Code`` so that people who know Core Data's errors
/// recognise it. ``detailedDescription`` adds the details and the chain of underlying errors.
///
/// ```swift
/// do {
///     let model = try ModelLoader().load(at: url)
/// } catch let error as MoltError {
///     print(error)                      // contents:12: <attribute>: unknown attribute type "Colour"
///     print(error.detailedDescription)  // the same, plus details and causes
/// }
/// ```
public struct MoltError: Error, Sendable, CustomStringConvertible {
    /// Core Data's (Cocoa domain) number for this kind of error.
    public var code: Code
    /// What went wrong, as one sentence without a trailing period.
    public var message: String
    /// Where in an input file the problem is, when it comes from one.
    public var location: SourceLocation?
    /// The entity involved, if any.
    public var entity: String?
    /// The property (attribute or relationship) involved, if any.
    public var property: String?
    /// What the user can do about it.
    public var recovery: String?
    /// Further lines shown by ``detailedDescription`` (for example every entity that differs).
    public var details: [String]
    /// The lower-level error that caused this one.
    public var underlying: (any Error & Sendable)?
    /// The model version the store is at when this error stopped a run of several steps (an
    /// upgrade): the steps that finished stay done, so it need not be the version the run
    /// started from, and the user must be told which it is. Nil for other errors.
    public var storeVersion: String?

    public init(
        _ code: Code,
        _ message: String,
        location: SourceLocation? = nil,
        entity: String? = nil,
        property: String? = nil,
        recovery: String? = nil,
        details: [String] = [],
        underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.location = location
        self.entity = entity
        self.property = property
        self.recovery = recovery
        self.details = details
        self.underlying = underlying
    }

    /// One line: location, subject and message.
    public var description: String {
        var parts: [String] = []
        if let location { parts.append(location.description) }
        if let subject { parts.append(subject) }
        parts.append(message)
        return parts.joined(separator: ": ")
    }

    /// The one-line description followed by the code, the recovery suggestion, details and the
    /// chain of underlying errors, one per line.
    public var detailedDescription: String {
        var lines = [description]
        lines.append("  code: \(code.rawValue) (\(code.name))")
        if let storeVersion { lines.append("  the store is at: \(storeVersion)") }
        if let recovery { lines.append("  what to do: \(recovery)") }
        for detail in details { lines.append("  - \(detail)") }
        var cause: (any Error)? = underlying
        var depth = 0
        while let current = cause, depth < 8 {
            if let molt = current as? MoltError {
                lines.append("  caused by: \(molt.description)")
                cause = molt.underlying
            } else {
                lines.append("  caused by: \(String(describing: current))")
                cause = nil
            }
            depth += 1
        }
        return lines.joined(separator: "\n")
    }

    private var subject: String? {
        switch (entity, property) {
        case (let entity?, let property?): return "\(entity).\(property)"
        case (let entity?, nil): return entity
        case (nil, let property?): return property
        case (nil, nil): return nil
        }
    }
}

extension MoltError: LocalizedError {
    public var errorDescription: String? { description }
    public var recoverySuggestion: String? { recovery }
}

extension MoltError {
    /// Returns a copy with ``location`` set when it has none.
    public func located(_ location: SourceLocation) -> MoltError {
        var copy = self
        if copy.location == nil { copy.location = location }
        return copy
    }

    /// Returns a copy whose ``entity`` (and optionally ``property``) are set when they are empty.
    public func about(entity: String?, property: String? = nil) -> MoltError {
        var copy = self
        if copy.entity == nil { copy.entity = entity }
        if copy.property == nil { copy.property = property }
        return copy
    }
}
