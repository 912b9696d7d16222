internal import MoltCore
public import MoltMapping

/// The two versions the passes of one step go between (Core Data's multiple passes: several
/// mapping models run one after the other into one new store), as their mapping models name
/// them. Passes are parts of one step, so where their files name versions, they name the same
/// two; a pass that names none takes them from the others.
public struct PassVersions: Sendable, Equatable {
    /// The source model's version name, when a pass names it.
    public var source: String?
    /// The destination model's version name, when a pass names it.
    public var destination: String?

    /// Reads the versions of `passes`, in order. Throws, naming both passes (and their files),
    /// when two name different versions on one side.
    public init(_ passes: [MappingModel]) throws {
        source = try Self.agreed(passes, \.sourceModelName, "from")
        destination = try Self.agreed(passes, \.destinationModelName, "to")
    }

    private static func agreed(
        _ passes: [MappingModel], _ side: KeyPath<MappingModel, String?>, _ direction: String
    ) throws -> String? {
        let named = passes.enumerated().compactMap { index, pass in pass[keyPath: side].map { (index, $0) } }
        guard let first = named.first else { return nil }
        if let other = named.first(where: { $0.1 != first.1 }) {
            func pass(_ index: Int) -> String {
                "pass \(index + 1)" + (passes[index].sourceFile.map { " (\($0))" } ?? "")
            }
            throw MoltError(
                .migration,
                "the passes of one step must go between the same two versions: the mapping of \(pass(first.0)) goes \(direction) \"\(first.1)\", that of \(pass(other.0)) \(direction) \"\(other.1)\"",
                location: passes[other.0].sourceFile.map { SourceLocation(file: $0) })
        }
        return first.1
    }
}
