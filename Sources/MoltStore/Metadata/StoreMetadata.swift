public import Foundation
public import MoltCore

/// A store's metadata: the row of `Z_METADATA` (`Z_UUID`, and the binary property list in
/// `Z_PLIST`).
///
/// Known keys are typed; every other key (an app's own metadata, keys of newer Core Data
/// releases) is kept in ``additionalEntries`` and written back unchanged.
public struct StoreMetadata: Sendable, Hashable {
    /// The store's UUID (`Z_UUID`, Core Data's `NSStoreUUID`).
    public var storeUUID: String
    /// `NSStoreType`: "SQLite" for SQLite stores.
    public var storeType: String
    /// `NSStoreModelVersionHashes`: entity name → 32-byte version hash.
    public var entityVersionHashes: [String: Data]
    /// `NSStoreModelVersionHashesVersion` (3 for current Core Data).
    public var versionHashesVersion: Int64?
    /// `NSStoreModelVersionIdentifiers`.
    public var versionIdentifiers: [String]
    /// `NSPersistenceFrameworkVersion`: the Core Data release that last wrote the store.
    public var frameworkVersion: Int64?
    /// `_NSAutoVacuumLevel` ("2" for incremental).
    public var autoVacuumLevel: String?
    /// `NSStoreModelVersionHashesDigest`, when present.
    public var versionHashesDigest: String?
    /// Every other key, preserved as read.
    public var additionalEntries: [String: PropertyList]

    /// The key of the store's model checksum (`NSManagedObjectModel.versionChecksum`, written
    /// by Core Data since 2023), kept among ``additionalEntries``. Every store Molt writes
    /// records its model's (``/MoltModel/VersionHasher/checksum(of:)``).
    public static let modelChecksumKey = "NSStoreModelVersionChecksumKey"

    /// The model checksum recorded in the metadata (``modelChecksumKey``), if any.
    public var modelChecksum: String? {
        get { additionalEntries[Self.modelChecksumKey]?.stringValue }
        set { additionalEntries[Self.modelChecksumKey] = newValue.map { .string($0) } }
    }

    static let knownKeys: Set<String> = [
        "NSStoreType", "NSStoreModelVersionHashes", "NSStoreModelVersionHashesVersion",
        "NSStoreModelVersionIdentifiers", "NSPersistenceFrameworkVersion", "_NSAutoVacuumLevel",
        "NSStoreModelVersionHashesDigest", "NSStoreUUID",
    ]

    public init(
        storeUUID: String,
        storeType: String = "SQLite",
        entityVersionHashes: [String: Data],
        versionHashesVersion: Int64? = 3,
        versionIdentifiers: [String] = [],
        frameworkVersion: Int64? = nil,
        autoVacuumLevel: String? = "2",
        versionHashesDigest: String? = nil,
        additionalEntries: [String: PropertyList] = [:]
    ) {
        self.storeUUID = storeUUID
        self.storeType = storeType
        self.entityVersionHashes = entityVersionHashes
        self.versionHashesVersion = versionHashesVersion
        self.versionIdentifiers = versionIdentifiers
        self.frameworkVersion = frameworkVersion
        self.autoVacuumLevel = autoVacuumLevel
        self.versionHashesDigest = versionHashesDigest
        self.additionalEntries = additionalEntries
    }

    /// Reads metadata from `Z_PLIST`'s decoded property list and the `Z_UUID` column.
    public init(propertyList: PropertyList, storeUUID: String) throws {
        guard let entries = propertyList.dictionaryValue else {
            throw Self.corrupt("Z_PLIST holds a \(propertyList.kindName), not a dictionary")
        }
        func string(_ key: String) throws -> String? {
            guard let value = entries[key] else { return nil }
            guard let text = value.stringValue else {
                throw Self.corrupt("\(key) is a \(value.kindName), not a string")
            }
            return text
        }
        func integer(_ key: String) throws -> Int64? {
            guard let value = entries[key] else { return nil }
            switch value {
            case .integer(let number): return number
            case .string(let text): if let number = Int64(text) { return number }
            default: break
            }
            throw Self.corrupt("\(key) is a \(value.kindName), not an integer")
        }
        var hashes: [String: Data] = [:]
        if let value = entries["NSStoreModelVersionHashes"] {
            guard let dictionary = value.dictionaryValue else {
                throw Self.corrupt("NSStoreModelVersionHashes is a \(value.kindName), not a dictionary")
            }
            for (name, hash) in dictionary {
                guard let data = hash.dataValue else {
                    throw Self.corrupt("the version hash of \(name) is a \(hash.kindName), not data")
                }
                hashes[name] = data
            }
        } else {
            throw Self.corrupt("NSStoreModelVersionHashes is missing")
        }
        var identifiers: [String] = []
        if let value = entries["NSStoreModelVersionIdentifiers"] {
            guard let array = value.arrayValue else {
                throw Self.corrupt("NSStoreModelVersionIdentifiers is a \(value.kindName), not an array")
            }
            identifiers = array.compactMap(\.stringValue)
        }
        self.storeUUID = storeUUID
        self.storeType = try string("NSStoreType") ?? "SQLite"
        self.entityVersionHashes = hashes
        self.versionHashesVersion = try integer("NSStoreModelVersionHashesVersion")
        self.versionIdentifiers = identifiers
        self.frameworkVersion = try integer("NSPersistenceFrameworkVersion")
        self.autoVacuumLevel = try string("_NSAutoVacuumLevel")
        self.versionHashesDigest = try string("NSStoreModelVersionHashesDigest")
        self.additionalEntries = entries.filter { !Self.knownKeys.contains($0.key) }
    }

    /// The property list stored in `Z_PLIST`.
    public var propertyList: PropertyList {
        var entries = additionalEntries
        entries["NSStoreType"] = .string(storeType)
        entries["NSStoreModelVersionHashes"] = .dictionary(entityVersionHashes.mapValues { .data($0) })
        if let versionHashesVersion { entries["NSStoreModelVersionHashesVersion"] = .integer(versionHashesVersion) }
        entries["NSStoreModelVersionIdentifiers"] = .array(versionIdentifiers.map { .string($0) })
        if let frameworkVersion { entries["NSPersistenceFrameworkVersion"] = .integer(frameworkVersion) }
        if let autoVacuumLevel { entries["_NSAutoVacuumLevel"] = .string(autoVacuumLevel) }
        if let versionHashesDigest { entries["NSStoreModelVersionHashesDigest"] = .string(versionHashesDigest) }
        return .dictionary(entries)
    }

    static func corrupt(_ message: String) -> MoltError {
        MoltError(
            .persistentStoreInvalidType, "the store's metadata is damaged: \(message)",
            recovery: "The file's Z_METADATA row was not written by Core Data or Molt, or was changed since.")
    }
}
