public import Foundation
public import MoltCore
internal import MoltModel

/// Whether a store's entity hashes equal a model's, and if not, how they differ.
public enum StoreCompatibility: Sendable, Hashable, CustomStringConvertible {
    case compatible
    /// `differing`: in both, with different hashes; `missingFromStore`: only in the model;
    /// `onlyInStore`: only in the store. Each list is sorted.
    case incompatible(differing: [String], missingFromStore: [String], onlyInStore: [String])

    /// Compares stored hashes with a model's.
    public init(storeHashes: [String: Data], modelHashes: [String: Data]) {
        let differing = modelHashes.keys.filter { name in storeHashes[name].map { $0 != modelHashes[name] } ?? false }
        let missing = modelHashes.keys.filter { storeHashes[$0] == nil }
        let extra = storeHashes.keys.filter { modelHashes[$0] == nil }
        if differing.isEmpty && missing.isEmpty && extra.isEmpty {
            self = .compatible
        } else {
            self = .incompatible(
                differing: differing.sorted(by: NameOrder.precedes),
                missingFromStore: missing.sorted(by: NameOrder.precedes),
                onlyInStore: extra.sorted(by: NameOrder.precedes))
        }
    }

    public var isCompatible: Bool { self == .compatible }

    /// "compatible", or "incompatible: entities X, Y differ; A missing from the store; B only in the store".
    public var description: String {
        guard case .incompatible(let differing, let missing, let extra) = self else { return "compatible" }
        var parts: [String] = []
        func list(_ names: [String]) -> String { names.joined(separator: ", ") }
        if !differing.isEmpty {
            parts.append(
                "\(differing.count == 1 ? "entity" : "entities") \(list(differing)) \(differing.count == 1 ? "differs" : "differ")"
            )
        }
        if !missing.isEmpty { parts.append("\(list(missing)) missing from the store") }
        if !extra.isEmpty { parts.append("\(list(extra)) only in the store") }
        return "incompatible: " + parts.joined(separator: "; ")
    }

    /// The error Core Data gives for an incompatible store (134100), naming what differs.
    public func error(store: String, model: String?) -> MoltError? {
        guard !isCompatible else { return nil }
        let modelName = model.map { "the model \"\($0)\"" } ?? "the model"
        return MoltError(
            .incompatibleVersionHash, "the store was made with a different model than \(modelName): \(description)",
            location: SourceLocation(file: store),
            recovery:
                "Give the model version the store was made with (a .xcdatamodeld bundle lets Molt find it), or migrate the store."
        )
    }
}
