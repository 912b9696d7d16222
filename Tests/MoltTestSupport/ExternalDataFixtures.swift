public import Foundation
public import Molt
public import MoltSQLite

/// A model with one attribute that allows external storage (`image`) and one that does not
/// (`thumbnail`), and stores laid out the way Core Data lays out external data: the row's
/// marker byte, and files named by UUID in `.<Store>_SUPPORT/_EXTERNAL_DATA/`.
public enum ExternalDataFixtures {
    public static let entities = """
        <entity name="Photo" representedClassName="Photo" syncable="YES">
            <attribute name="caption" optional="YES" attributeType="String"/>
            <attribute name="image" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
            <attribute name="thumbnail" optional="YES" attributeType="Binary"/>
        </entity>
        """

    public static func model() throws -> ObjectModel {
        try XcodeModelReader().read(Data(ModelXML.document(entities).utf8), file: "Photos/contents", name: "Photos")
    }

    /// Bytes no one would mistake for others: `count` bytes from a seeded sequence.
    public static func bytes(_ count: Int, seed: UInt8) -> Data {
        var value = UInt32(seed) &* 2_654_435_761 | 1
        return Data(
            (0..<count).map { _ in
                value ^= value << 13
                value ^= value >> 17
                value ^= value << 5
                return UInt8(truncatingIfNeeded: value)
            })
    }

    /// An empty store at `name` in `folder`, its `_EXTERNAL_DATA` folder, and a function that
    /// inserts a Photo row with exactly the given stored values.
    public static func handMadeStore(
        in folder: TemporaryDirectory, name: String = "Photos.sqlite"
    ) throws -> (
        url: URL, external: URL, insert: (Int64, SQLiteValue, SQLiteValue) throws -> Void
    ) {
        let url = folder.path(name)
        let model = try model()
        _ = try ObjectStore.create(at: url, model: model)
        let external = CompanionFiles.supportFolder(of: url).appendingPathComponent("_EXTERNAL_DATA")
        try FileManager.default.createDirectory(at: external, withIntermediateDirectories: true)
        let number = try StoreLayout(model: model).entity(named: "Photo")!.number
        let insert: (Int64, SQLiteValue, SQLiteValue) throws -> Void = { key, image, thumbnail in
            let connection = try SQLiteConnection(path: url.path, mode: .readWrite)
            defer { connection.close() }
            try connection.run(
                "INSERT INTO ZPHOTO (Z_PK, Z_ENT, Z_OPT, ZCAPTION, ZIMAGE, ZTHUMBNAIL) VALUES (?, ?, 1, ?, ?, ?)",
                [.integer(key), .integer(Int64(number)), .text("photo \(key)"), image, thumbnail])
            try connection.run(
                "UPDATE Z_PRIMARYKEY SET Z_MAX = max(Z_MAX, ?) WHERE Z_ENT = ?",
                [
                    .integer(key), .integer(Int64(number)),
                ])
        }
        return (url, external, insert)
    }

    /// The row form of a reference to the file `name`.
    public static func reference(_ name: String, terminated: Bool = true) -> SQLiteValue {
        .blob(Data([0x02]) + Data(name.utf8) + (terminated ? Data([0]) : Data()))
    }

    /// The row form of a value kept in the row.
    public static func inline(_ value: Data) -> SQLiteValue {
        .blob(Data([0x01]) + value)
    }

    /// ``entities`` with external storage moved from `image` to `thumbnail`.
    public static var swappedStorageEntities: String {
        entities.replacingOccurrences(of: " allowsExternalBinaryDataStorage=\"YES\"", with: "")
            .replacingOccurrences(
                of: "name=\"thumbnail\" optional=\"YES\" attributeType=\"Binary\"",
                with:
                    "name=\"thumbnail\" optional=\"YES\" attributeType=\"Binary\" allowsExternalBinaryDataStorage=\"YES\""
            )
    }

    /// The names in the `_EXTERNAL_DATA` folder of the store at `store`, sorted (none if absent).
    public static func files(of store: URL) -> [String] {
        let path = CompanionFiles.supportFolder(of: store).appendingPathComponent("_EXTERNAL_DATA").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    /// The file's inode number: equal for two names of one file (a hard link).
    public static func inode(_ path: String) throws -> UInt64 {
        (try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
    }
}
