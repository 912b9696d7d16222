import Foundation

/// The benchmark's tables, in Markdown.
struct Report {
    private(set) var text = ""

    mutating func addSize(size: Int, objects: Int, results: [String: JobResult]) {
        func row(_ label: String, _ molt: String, _ base: String, target: String) -> String {
            guard let m = results[molt], let b = results[base] else { return "" }
            let ratio = m.seconds / b.seconds
            return
                "| \(label) | \(format(m.seconds)) s | \(format(b.seconds)) s | \(String(format: "%.2f", ratio))× | \(target) | \(format(m.peakMB, 0)) MB / \(format(b.peakMB, 0)) MB |\n"
        }
        text += "### \(objects) objects (\(size) Records, \(objects - size) Tags)\n\n"
        text += "| measure | Molt | baseline | ratio | target | peak RSS Molt / baseline |\n"
        text += "|---|---|---|---|---|---|\n"
        text += row("1. copy mapping vs `INSERT … SELECT`", "molt-copy", "raw-copy", target: "≤ 1.5×")
        text += row("1b. same copy, object by object", "molt-copy-objects", "raw-copy", target: "≤ 1.8×")
        text += row(
            "1b, on one thread (`jobs = 1`)", "molt-copy-objects-one-thread", "raw-copy", target: "(information)")
        text += row(
            "1c. same copy into ordered relationships, object by object", "molt-ordered", "raw-copy",
            target: "(information)")
        text += row("2. transform policy vs C-API loop", "molt-transform", "loop-transform", target: "≤ 0.8×")
        text += row(
            "2, on one thread (`jobs = 1`)", "molt-transform-one-thread", "loop-transform", target: "(information)")
        text += row("4a. in place: add a column vs its SQL", "molt-add", "raw-add", target: "≤ 1.1×")
        text += row("4b. in place: rename vs its SQL", "molt-rename", "raw-rename", target: "≤ 1.1×")
        text += row("4c. in place: table rebuild vs its SQL", "molt-rebuild", "raw-rebuild", target: "≤ 1.1×")
        text += "\n| 3. relationship pass | links | seconds | links/s | target |\n|---|---|---|---|---|\n"
        for job in ["molt-copy", "molt-copy-objects", "molt-ordered", "molt-transform", "loop-relate", "sql-relate"] {
            guard let result = results[job], let links = result.links else { continue }
            if let relate = result.relateSeconds, relate > 0 {
                text +=
                    "| \(job) | \(links) | \(format(relate)) | \(Int(Double(links) / relate)) | ≥ 500000 |\n"
            } else if result.sqlOnCopy == true {
                text += "| \(job) (links copied by SQL within the copy) | \(links) | — | — | ≥ 500000 |\n"
            }
        }
        text += "\n"
        if let transform = results["molt-transform"], let records = transform.records, records > 0 {
            let perObject = transform.seconds / Double(records) * 1e6
            text +=
                "| 6. policy queries and deletes | seconds | µs per object | extra µs per fetch or delete | vs the transform's µs per object |\n"
            text += "|---|---|---|---|---|\n"
            text +=
                "| molt-transform (per object: read, transform, insert, associate, relate, validate) | \(format(transform.seconds)) | \(format(perObject, 1)) | — | — |\n"
            if let fetch = results["molt-fetch"] {
                let extra = (fetch.seconds - transform.seconds) / Double(records) * 1e6
                text +=
                    "| molt-fetch (+ one destination fetch by an indexed label, and setting the owner, per Record) | \(format(fetch.seconds)) | \(format(fetch.seconds / Double(records) * 1e6, 1)) | \(format(extra, 1)) | \(String(format: "%.2f", extra / perObject))× |\n"
            }
            if let delete = results["molt-delete"], let deleted = delete.deleted, deleted > 0 {
                let extra = (delete.seconds - transform.seconds) / Double(deleted) * 1e6
                text +=
                    "| molt-delete (+ \(deleted) Records deleted in `end`, owner and tags nullified) | \(format(delete.seconds)) | \(format(delete.seconds / Double(records) * 1e6, 1)) | \(format(extra, 1)) | \(String(format: "%.2f", extra / perObject))× |\n"
            }
            text += "\n"
        }
    }

    mutating func addScaling(_ bySize: [Int: [String: JobResult]]) {
        let sizes = bySize.keys.sorted()
        guard sizes.count >= 2, let small = sizes.first, let large = sizes.last else { return }
        text += "### 5. Scaling: \(large) vs \(small) Records\n\n"
        text += "| job | peak RSS \(small) | peak RSS \(large) | RSS ratio | time ratio (size ×\(large / small)) |\n"
        text += "|---|---|---|---|---|\n"
        // The baselines' own ratios show what the machine (disk, cache) does at each size.
        for job in [
            "molt-copy", "raw-copy", "molt-copy-objects", "molt-copy-objects-one-thread", "molt-ordered",
            "molt-transform", "molt-transform-one-thread", "loop-transform",
            "molt-add", "raw-add",
            "molt-rebuild", "raw-rebuild",
        ] {
            guard let a = bySize[small]?[job], let b = bySize[large]?[job] else { continue }
            text +=
                "| \(job) | \(format(a.peakMB, 0)) MB | \(format(b.peakMB, 0)) MB | \(String(format: "%.2f", b.peakMB / a.peakMB))× | \(String(format: "%.1f", b.seconds / a.seconds)) |\n"
        }
        text += "\nTargets: RSS ratio ≤ 1.2× and < 150 MB; time ratio ≤ 11.\n"
    }

    private func format(_ value: Double, _ digits: Int = 3) -> String {
        String(format: "%.\(digits)f", value)
    }
}
