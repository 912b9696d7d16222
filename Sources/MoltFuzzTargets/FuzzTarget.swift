public import Foundation

/// The readers of untrusted input, each as a function from bytes to a verdict, shared by the
/// libFuzzer executables in `Fuzz/` and the bounded mutation run of the test suite.
///
/// A target never throws: every error a reader throws is expected (hostile input is refused),
/// and what the target returns is a broken promise: an error that is not a ``MoltError``, one
/// that does not name the file, an expression that does not print back to itself, translated
/// SQL that SQLite refuses. A crash, a hang or unbounded memory is found by the caller.
///
/// ```swift
/// if let problem = FuzzTarget.expression.run(Data("a == (".utf8)) { fatalError(problem) }
/// ```
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// ``SafeXMLParser`` on any bytes.
    case xml
    /// An XML property list (a bundle's `.xccurrentversion`).
    case plist
    /// A model version's `contents` file: read, checked, hashed and laid out as tables.
    case model
    /// A mapping file: read (schema, expressions) and checked against the example Blog models.
    case mapping
    /// Expression text: parsed, printed and parsed again.
    case expression
    /// Predicate text: parsed and run as a filter over the example Blog store (SQL and memory).
    case predicate
    /// A JSON seed: parsed and imported into an empty Blog store, then rolled back.
    case seed
    /// A binary property list (a store's `Z_METADATA.Z_PLIST`), read as store metadata.
    case bplist
    /// Raw DEFLATE data (a store's `Z_MODELCACHE`), inflated with a 4 MB limit.
    case inflate
    /// A compiled model (an inflated `Z_MODELCACHE`): decoded, hashed, written as an Xcode
    /// model and read back with the same hashes.
    case modelarchive
    /// A Transformable attribute's value (a keyed archive of Foundation property-list objects):
    /// decoded, and written back by Molt into an archive that reads back the same.
    case transformable

    /// The file name errors must carry.
    public static let fileName = "fuzz-input"

    /// Runs the target on `data`; returns nil when the reader kept its promises, otherwise
    /// what went wrong.
    public func run(_ data: Data) -> String? {
        switch self {
        case .xml: XMLTargets.xml(data)
        case .plist: XMLTargets.plist(data)
        case .model: XMLTargets.model(data)
        case .mapping: XMLTargets.mapping(data)
        case .expression: TextTargets.expression(data)
        case .predicate: TextTargets.predicate(data)
        case .seed: SeedTarget.shared.run(data)
        case .bplist: XMLTargets.binaryPropertyList(data)
        case .inflate: ArchiveTargets.inflate(data)
        case .modelarchive: ArchiveTargets.modelArchive(data)
        case .transformable: TransformableTarget.run(data)
        }
    }

    /// Example inputs from the repository to start from (the seed corpus), by file path.
    public var examplePaths: [String] {
        let root = FuzzFiles.packageRoot.path
        let blog = "\(root)/MappingModels/Examples/Blog.xcdatamodeld"
        let contacts = "\(root)/MappingModels/Examples/Contacts.xcdatamodeld"
        switch self {
        case .xml, .model:
            return [
                "\(blog)/Blog.xcdatamodel/contents", "\(blog)/Blog 2.xcdatamodel/contents",
                "\(contacts)/Contacts.xcdatamodel/contents", "\(contacts)/Contacts 4.xcdatamodel/contents",
            ]
        case .plist:
            return ["\(blog)/.xccurrentversion", "\(contacts)/.xccurrentversion"]
        case .mapping:
            return [
                "\(root)/MappingModels/Blog/Blog-to-Blog2.xml",
                "\(root)/MappingModels/Contacts/Contacts-to-Contacts2.xml",
                "\(root)/MappingModels/Contacts/Contacts2-to-Contacts3.xml",
            ]
        case .seed:
            return ["\(root)/MappingModels/Examples/Blog.json"]
        case .expression, .predicate, .bplist, .inflate, .modelarchive, .transformable:
            return []  // written by ``exampleInputs`` from the mapping files and the example store
        }
    }

    /// The seed corpus: the example files, plus the expressions and filters of the mapping
    /// files (for the text targets), the example store's metadata (for `bplist`), DEFLATE
    /// vectors (for `inflate`), the example models as compiled archives (for `modelarchive`) and
    /// archives of Foundation objects (for `transformable`).
    public func exampleInputs() -> [Data] {
        var inputs = examplePaths.compactMap { FileManager.default.contents(atPath: $0) }
        switch self {
        case .expression, .predicate:
            inputs += FuzzFiles.exampleExpressions(filtersOnly: self == .predicate).map { Data($0.utf8) }
        case .bplist:
            if let metadata = FuzzFiles.exampleStoreMetadata() { inputs.append(metadata) }
        case .inflate:
            inputs += ArchiveTargets.inflateExamples()
        case .modelarchive:
            inputs += ArchiveTargets.modelArchiveExamples()
        case .transformable:
            inputs += TransformableTarget.examples()
        default:
            break
        }
        return inputs
    }
}

extension FuzzTarget {
    /// Writes ``exampleInputs()`` into `folder`, one file each (`example-1`, …); false when
    /// there are none or they cannot be written.
    public func writeExampleInputs(to folder: String) -> Bool {
        let inputs = exampleInputs()
        let url = URL(fileURLWithPath: folder)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            for (index, input) in inputs.enumerated() {
                try input.write(to: url.appendingPathComponent("example-\(index + 1)"))
            }
        } catch {
            return false
        }
        return !inputs.isEmpty
    }
}
