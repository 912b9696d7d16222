internal import CLibXML2
package import Foundation
package import MoltCore

/// An XML Schema (XSD) that documents are validated against after they parse.
///
/// The schema is Molt's own, compiled by libxml2 for each validation (it is small); it must not
/// import or include other files.
package struct XMLSchema: Sendable {
    /// The schema document's bytes.
    package let data: Data
    /// A name for the schema in messages.
    package let name: String

    package init(data: Data, name: String) {
        self.data = data
        self.name = name
    }

    /// Every way `document` breaks the schema, each with its line and element.
    func validate(_ document: xmlDocPtr, file: String) throws -> [MoltError] {
        let collector = XMLErrorCollector(file: name)
        let unmanaged = Unmanaged.passRetained(collector)
        defer { unmanaged.release() }

        let compiled: xmlSchemaPtr? = data.withUnsafeBytes { raw in
            guard let parser = xmlSchemaNewMemParserCtxt(raw.bindMemory(to: CChar.self).baseAddress, Int32(raw.count))
            else { return nil }
            defer { xmlSchemaFreeParserCtxt(parser) }
            xmlSchemaSetParserStructuredErrors(parser, collectStructuredError, unmanaged.toOpaque())
            return xmlSchemaParse(parser)
        }
        guard let compiled else {
            throw collector.firstError
                ?? MoltError(
                    .fileReadUnknown, "the schema \(name) could not be compiled", location: SourceLocation(file: name))
        }
        defer { xmlSchemaFree(compiled) }
        guard let validator = xmlSchemaNewValidCtxt(compiled) else {
            throw MoltError(
                .fileReadUnknown, "libxml2 could not create a schema validator", location: SourceLocation(file: file))
        }
        defer { xmlSchemaFreeValidCtxt(validator) }
        let violations = XMLErrorCollector(file: file, prefix: "does not follow the schema")
        let unmanagedViolations = Unmanaged.passRetained(violations)
        defer { unmanagedViolations.release() }
        xmlSchemaSetValidStructuredErrors(validator, collectStructuredError, unmanagedViolations.toOpaque())
        let result = xmlSchemaValidateDoc(validator, document)
        if result != 0 && violations.errors.isEmpty {
            return [
                MoltError(
                    .fileReadCorruptFile, "the document does not follow the schema",
                    location: SourceLocation(file: file))
            ]
        }
        return violations.errors
    }
}

/// A document that parsed but breaks its schema: every violation, in document order.
package struct XMLValidationFailure: Error, Sendable, CustomStringConvertible {
    package let file: String
    package let violations: [MoltError]

    package var description: String {
        violations.first?.description ?? "\(file): the document does not follow the schema"
    }

    /// One error for all the violations: the first as the message, all in the details.
    package var combined: MoltError {
        var error = violations.first ?? MoltError(.fileReadCorruptFile, "the document does not follow the schema")
        if violations.count > 1 {
            error.message += " (and \(violations.count - 1) more problem\(violations.count == 2 ? "" : "s"))"
        }
        error.details = violations.map(\.description)
        return error
    }
}
