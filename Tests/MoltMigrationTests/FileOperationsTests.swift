import Foundation
import MoltCore
import MoltTestSupport
import Testing

@testable import MoltMigration

/// The complete copies the swap, the in-place backup, the upgrade's backup and the SQL path
/// make (found by the crash test's full-disk runs: a failed copy left its partial file, and said
/// only "the operation could not be completed").
@Suite("Copying store files")
struct FileOperationsTests {
    let folder = TemporaryDirectory()

    @Test("a copy that fails leaves no partial file behind")
    func failedCopyLeavesNothing() throws {
        let source = try folder.write("the store", to: "store.sqlite")
        let taken = folder.path("taken")
        try FileManager.default.createDirectory(
            at: taken.appendingPathComponent("inside"), withIntermediateDirectories: true)
        #expect(throws: MoltError.self) { try FileOperations.copy(source.path, to: taken.path) }
        #expect(try MigrationFixtures.files(folder) == ["store.sqlite", "taken"])
    }

    @Test("a failed copy says why in the system's words")
    func failureReason() throws {
        let source = try folder.write("the store", to: "store.sqlite")
        let error = #expect(throws: MoltError.self) {
            try FileOperations.copy(source.path, to: folder.path("missing/store.sqlite").path)
        }
        #expect(error?.message.contains("No such file or directory") == true, "\(String(describing: error))")
        let wrapped = NSError(
            domain: NSCocoaErrorDomain, code: 512,
            userInfo: [NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(EFBIG))])
        #expect(FileOperations.reason(wrapped) == String(cString: strerror(EFBIG)))
    }

    @Test("a copy is complete and the partial name is gone")
    func copies() throws {
        let source = try folder.write("the store", to: "store.sqlite")
        try FileOperations.copy(source.path, to: folder.path("copy.sqlite").path)
        #expect(try String(contentsOf: folder.path("copy.sqlite"), encoding: .utf8) == "the store")
        #expect(try MigrationFixtures.files(folder) == ["copy.sqlite", "store.sqlite"])
    }
}
