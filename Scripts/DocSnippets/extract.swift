// Extracts every Swift code block of the README and the documentation into a package that
// depends on Molt by path, so that building it shows whether the documentation's Swift
// compiles as shown. Run by `Scripts/check-doc-snippets.sh`:
//
//     swift Scripts/DocSnippets/extract.swift <repository> <output folder>
//
// A block's first line may say how to build it:
// - `// Fragment: why` — not built (a part of a file, elided code, another package's file);
// - `// Given: name: Type, …` — what earlier text of the page set up: the block is built as the
//   body of a function taking these parameters, with `import Foundation` and `import Molt`.
// A block with imports of its own is a whole file: it is built with only those imports (a
// missing `import Foundation` fails). A block without imports is a part of its page, where
// Foundation and Molt are imported. Declarations stay at file scope; a block with statements
// becomes the body of a function. The blocks of one page form one module (a later block may
// use a type an earlier one declared).

import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: extract.swift <repository> <output folder>\n".utf8))
    exit(64)
}
let repository = URL(fileURLWithPath: arguments[1]).standardizedFileURL
let output = URL(fileURLWithPath: arguments[2]).standardizedFileURL

/// The pages: the README, the Policies README and every DocC article.
func pages() throws -> [URL] {
    var found = [repository.appendingPathComponent("README.md"), repository.appendingPathComponent("Policies/README.md")]
    let docc = repository.appendingPathComponent("Sources/Molt/Molt.docc")
    found += try FileManager.default.contentsOfDirectory(at: docc, includingPropertiesForKeys: nil)
        .filter { $0.pathExtension == "md" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
    return found
}

struct Block {
    let line: Int
    var lines: [String]
}

/// The ```swift blocks of a page, with the line each starts on.
func blocks(of page: URL) throws -> [Block] {
    let text = try String(contentsOf: page, encoding: .utf8)
    var result: [Block] = []
    var current: Block?
    for (index, line) in text.components(separatedBy: "\n").enumerated() {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if current == nil, trimmed == "```swift" {
            current = Block(line: index + 2, lines: [])
        } else if current != nil, trimmed == "```" {
            result.append(current!)
            current = nil
        } else if current != nil {
            current!.lines.append(line)
        }
    }
    return result
}

let declarationStarts = [
    "import ", "final class ", "class ", "struct ", "enum ", "extension ", "func ", "protocol ", "public ", "@",
    "//", "}", "private ", "fileprivate ", "internal ",
]

/// Whether a line at column 0 starts a statement (not a declaration, comment or closing brace).
func isStatement(_ line: String) -> Bool {
    guard let first = line.first, !first.isWhitespace else { return false }
    return !declarationStarts.contains { line.hasPrefix($0) }
}

/// The Swift file for one block, or nil for a fragment.
func source(of block: Block, page: String, number: Int) -> String? {
    var lines = block.lines
    while lines.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeLast() }
    let header = "// \(page):\(block.line), block \(number).\n"
    if lines.first?.hasPrefix("// Fragment") == true { return nil }
    var given: String?
    if let first = lines.first, first.hasPrefix("// Given: ") {
        given = String(first.dropFirst("// Given: ".count))
        lines[0] = ""
    }
    // Imports move to the file's top; blank lines keep their places, so that an error's line
    // is the page's.
    let imports = lines.filter { $0.hasPrefix("import ") }
    let body = lines.map { $0.hasPrefix("import ") ? "" : $0 }
    var file = header
    var imported = Set(imports)
    if given != nil || imports.isEmpty {
        for module in ["import Foundation", "import Molt"] where !imported.contains(module) {
            imported.insert(module)
            file += module + "\n"
        }
    }
    file += imports.joined(separator: "\n") + (imports.isEmpty ? "" : "\n") + "\n"
    if given != nil || body.contains(where: isStatement) {
        file += "func snippet\(number)(\(given ?? "")) throws {\n"
        file += "#sourceLocation(file: \"\(page)\", line: \(block.line))\n"
        file += body.map { "    " + $0 }.joined(separator: "\n") + "\n"
        file += "#sourceLocation()\n}\n"
    } else {
        file += "#sourceLocation(file: \"\(page)\", line: \(block.line))\n"
        file += body.joined(separator: "\n") + "\n#sourceLocation()\n"
    }
    return file
}

/// A module name for a page: `README.md` → `README`, `Policies/README.md` → `PoliciesREADME`.
func moduleName(_ page: String) -> String {
    let base = page.replacingOccurrences(of: ".md", with: "").replacingOccurrences(of: "Sources/Molt/Molt.docc/", with: "")
    return "Snippets" + base.filter { $0.isLetter || $0.isNumber }
}

let fileManager = FileManager.default
try? fileManager.removeItem(at: output.appendingPathComponent("Sources"))
var targets: [String] = []
var built = 0
var fragments = 0
for page in try pages() {
    let relative = String(page.path.dropFirst(repository.path.count + 1))
    let found = try blocks(of: page)
    guard !found.isEmpty else { continue }
    let module = moduleName(relative)
    let folder = output.appendingPathComponent("Sources/\(module)")
    var wrote = false
    for (index, block) in found.enumerated() {
        guard let text = source(of: block, page: page.path, number: index + 1) else {
            fragments += 1
            continue
        }
        if !wrote { try fileManager.createDirectory(at: folder, withIntermediateDirectories: true) }
        wrote = true
        try text.write(to: folder.appendingPathComponent("Block\(index + 1).swift"), atomically: true, encoding: .utf8)
        built += 1
    }
    if wrote { targets.append(module) }
}

let manifest = """
    // swift-tools-version:6.0
    // Generated by Scripts/DocSnippets/extract.swift: the documentation's Swift blocks, one
    // module per page, against Molt by path.
    import PackageDescription

    // A documentation example often leaves a value unused (`let report = try migration.run()`):
    // the check is that the blocks compile, so their warnings are not shown.
    let quiet: [SwiftSetting] = [.unsafeFlags(["-suppress-warnings"])]

    let package = Package(
        name: "DocSnippets",
        platforms: [.macOS(.v13)],
        dependencies: [.package(name: "Molt", path: "\(repository.path)")],
        targets: [
    \(targets.map { "        .target(name: \"\($0)\", dependencies: [.product(name: \"Molt\", package: \"Molt\")], swiftSettings: quiet)," }.joined(separator: "\n"))
        ]
    )

    """
try fileManager.createDirectory(at: output, withIntermediateDirectories: true)
try manifest.write(to: output.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
print("doc snippets: \(built) blocks to build in \(targets.count) modules, \(fragments) marked as fragments")
