import Foundation
import Molt
import MoltTestSupport
import Testing

/// Molt writes a migrated store's model cache (`Z_MODELCACHE`) as Core Data keeps it. The one
/// real store with a cache in the fixtures is the check: its cache, decoded to a model and
/// archived again by ``CompiledModelArchiver``, is the same tree of objects.
@Suite(
    "The model cache written as Core Data writes it",
    .enabled(if: Fixtures.available, "../shared/fixtures is absent: the real store's cache cannot be compared"))
struct ModelCacheFidelityTests {
    @Test("the real store's cache, decoded and archived again, is the same object tree")
    func reencodedRealCache() throws {
        let data = try Inflate().decompress(try RealModelCache.blob(), name: "TestModel.sqlite's Z_MODELCACHE")
        let original = try BinaryPropertyListReader().read(data)
        let model = try CompiledModelDecoder().decode(data, location: SourceLocation(file: "TestModel.sqlite")).model
        let again = CompiledModelArchiver().archive(model)
        let expected = ArchiveTree.tree(of: original)
        let actual = ArchiveTree.tree(of: again)
        #expect(
            actual == expected,
            "\(EquivalentRuns.firstDifference(expected, actual, names: ("Core Data's", "Molt's")))")
    }
}
