import Foundation
import MoltCore
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// `ObjectStore.validate()`: the model's rules about whole objects, which `write` does not run
/// (Core Data checks them when it saves), with Core Data's errors. The Getting Started
/// snippet's own case: the bundled Blog store, whose Tag names are unique.
@Suite("Validating a store's objects")
struct StoreValidateTests {
    static func blog(_ folder: TemporaryDirectory) throws -> ObjectStore {
        let store = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"))
        let bundle = try ModelBundle(url: Fixtures.package("MappingModels/Examples/Blog.xcdatamodeld"))
        return try ObjectStore.open(at: store, models: .bundle(bundle), readOnly: false)
    }

    @Test("the bundled store passes; a second Tag named \"swift\" fails with 133021, naming both")
    func uniqueness() throws {
        let folder = TemporaryDirectory("molt-validate")
        let store = try Self.blog(folder)
        try store.validate()
        try store.write { writer in
            _ = try writer.insert("Tag", attributes: ["name": .string("linux")])
        }
        try store.validate()
        try store.write { writer in
            _ = try writer.insert("Tag", attributes: ["name": .string("swift")])
        }
        let error = try #require(throws: MoltError.self) { try store.validate() }
        #expect(error.code == .constraintConflict, "\(error)")
        #expect(error.entity == "Tag" && error.message.contains("name"), "\(error)")
        #expect(error.location?.file == store.store.url.path)
    }

    @Test("a required value left out fails with Core Data's 1570")
    func required() throws {
        let folder = TemporaryDirectory("molt-validate-required")
        let store = try Self.blog(folder)
        let required = try #require(
            store.model.entities.lazy.compactMap { entity in
                entity.attributes.first { !$0.isOptional && !$0.isTransient && $0.defaultValue == nil }
                    .map { (entity, $0) }
            }.first(where: { !$0.0.isAbstract }))
        try store.write { writer in _ = try writer.insert(required.0.name, attributes: [:]) }
        let error = try #require(throws: MoltError.self) { try store.validate() }
        #expect([.validationMissingMandatoryProperty, .validationMultiple].contains(error.code), "\(error)")
        #expect(error.message.contains(required.1.name) || error.details.joined().contains(required.1.name), "\(error)")
    }
}
