internal import Foundation
internal import MoltCore
internal import MoltMapping
internal import MoltModel
internal import MoltStore
internal import MoltXML

/// The XML readers (the safe parser, property lists, models, mapping files) and the binary
/// property list reader, as fuzz targets.
enum XMLTargets {
    static let file = FuzzTarget.fileName

    static func xml(_ data: Data) -> String? {
        do {
            _ = try SafeXMLParser().parse(data, file: file)
            return nil
        } catch {
            return Promises.refusal(error, codes: [.fileReadCorruptFile], needsLine: !data.isEmpty)
        }
    }

    static func plist(_ data: Data) -> String? {
        do {
            let document = try SafeXMLParser().parse(data, file: file)
            _ = try XMLPropertyListReader().read(document)
            return nil
        } catch {
            return Promises.refusal(error, codes: [.fileReadCorruptFile, .propertyListReadCorrupt], needsLine: true)
        }
    }

    /// Reads a model, then does what every command does with one: check it, hash it, and lay
    /// it out as tables (when it has no errors).
    static func model(_ data: Data) -> String? {
        let model: ObjectModel
        do {
            model = try XcodeModelReader().read(data, file: file)
        } catch {
            return Promises.refusal(error, codes: [.fileReadCorruptFile], needsLine: true)
        }
        let diagnostics = ModelChecker().check(model)
        for diagnostic in diagnostics where diagnostic.location?.file != file {
            return "a model diagnostic does not name the file: \(diagnostic)"
        }
        do {
            _ = try model.entityVersionHashes()
            if !diagnostics.hasErrors { _ = try StoreLayout(model: model).schemaStatements }
        } catch {
            return Promises.refusal(error, codes: [.invalidModel, .fileReadCorruptFile])
        }
        return nil
    }

    /// Reads a mapping file, then checks it against the example Blog models.
    static func mapping(_ data: Data) -> String? {
        let (mapping, diagnostics) = MappingReader().read(data, file: file)
        for diagnostic in diagnostics {
            guard let location = diagnostic.location, location.file == file, (location.line ?? 0) >= 1 else {
                return "a mapping diagnostic does not name the file and line: \(diagnostic)"
            }
            if let column = location.column, column < 1 { return "a diagnostic gives column \(column)" }
        }
        guard let mapping else {
            return diagnostics.hasErrors ? nil : "the mapping was refused without an error"
        }
        if let (source, destination) = FuzzFiles.blogModels {
            for diagnostic in MappingChecker().check(mapping, source: source, destination: destination)
            where diagnostic.location == nil {
                return "a checker diagnostic has no location: \(diagnostic)"
            }
        }
        return nil
    }

    /// Reads a binary property list, and the store metadata it may hold.
    static func binaryPropertyList(_ data: Data) -> String? {
        do {
            let plist = try BinaryPropertyListReader().read(data, name: file)
            _ = try? StoreMetadata(propertyList: plist, storeUUID: "")
            _ = BinaryPropertyListWriter().write(plist)
            return nil
        } catch let error as MoltError where error.code == .propertyListReadCorrupt {
            return error.message.hasPrefix(file) ? nil : "the error does not name the data: \(error)"
        } catch {
            return "threw \(error) instead of a property-list error"
        }
    }
}
