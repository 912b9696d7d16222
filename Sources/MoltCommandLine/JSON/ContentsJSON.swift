import Molt

/// What a migration did with the store's contents besides its objects, in `--json`.
struct ContentsJSON: Encodable {
    struct Item: Encodable {
        let what: String
        let detail: String
    }

    let kept: [Item]
    let rewritten: [Item]
    let discarded: [Item]

    init(_ contents: CarriedContents) {
        func items(_ list: [CarriedContents.Item]) -> [Item] { list.map { Item(what: $0.what, detail: $0.detail) } }
        kept = items(contents.kept)
        rewritten = items(contents.rewritten)
        discarded = items(contents.discarded)
    }
}
