import Molt

/// Library 2 → Library 3: each book's `authorName` text becomes a shared `Author` object, one
/// per name (spaces and case ignored), and its ISBN is kept in one form: digits only (and a
/// final X), 10 or 13 of them. A book whose ISBN is not one stops the migration, naming it:
/// the store is left as it was, and the app fixes its data or this policy.
///
/// The Core Data original would keep the authors met so far in the migration manager's
/// `userInfo`, as this does.
public final class BookAuthorPolicy: EntityMigrationPolicy {
    static let authorsKey = "authorsByName"

    public required init() {}

    public override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        let book = try manager.createDefaultDestinationInstance(for: source)
        let context = manager.destinationContext
        if let isbn = try source.text("isbn") {
            try context.setValue(try Self.normalized(isbn: isbn, of: source), forKey: "isbn", of: book)
        }
        guard let name = try source.text("authorName")?.trimmingCharacters(in: .whitespaces), !name.isEmpty else {
            return
        }
        let key = name.lowercased().split(separator: " ").joined(separator: " ")
        let author = try manager.userInfo.modify(Self.authorsKey, default: [String: DestinationObject]()) { authors in
            if let known = authors[key] { return known }
            let made = try context.insertNewObject(forEntityName: "Author", attributes: ["name": name])
            authors[key] = made
            return made
        }
        try context.setValue(author, forKey: "author", of: book)
    }

    /// The ISBN's digits (and a final X); 10 or 13 of them, or an error naming the book.
    static func normalized(isbn: String, of source: SourceObject) throws -> String {
        let kept = isbn.uppercased().filter { $0.isNumber || $0 == "X" }
        let valid =
            (kept.count == 10 && kept.dropLast().allSatisfy(\.isNumber))
            || (kept.count == 13 && kept.allSatisfy(\.isNumber))
        guard valid else { throw InvalidISBN(isbn: isbn, book: "\(source.id)") }
        return kept
    }
}

/// An ISBN that is not 10 or 13 digits: Molt reports it as the policy's failure (134170),
/// naming the mapping and the book.
struct InvalidISBN: Error, CustomStringConvertible {
    let isbn: String
    let book: String

    var description: String { "the ISBN \"\(isbn)\" of \(book) has not 10 or 13 digits" }
}
