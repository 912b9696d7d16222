/// What a migration did not carry into the new version, as lines: the store's other contents,
/// what the mappings certainly discard, then what only a policy's code may read. The words of
/// `molt migrate`, `molt upgrade` and the reports' summaries.
package enum DiscardSummary {
    package static func lines(
        _ discarded: [DiscardedData], contents: CarriedContents = CarriedContents(), into version: String?,
        dryRun: Bool, indent: String = ""
    ) -> [String] {
        var lines: [String] = []
        let target = version.map { " into \($0)" } ?? ""
        if !contents.isEmpty {
            lines.append("\(indent)Store contents besides the objects:")
            lines += contents.lines.map { "\(indent)  \($0)" }
        }
        guard !discarded.isEmpty || !contents.discarded.isEmpty else {
            return lines + ["\(indent)Discarded: nothing (every object, value and link was carried\(target))."]
        }
        guard !discarded.isEmpty else {
            return lines + ["\(indent)Discarded: no object, value or link; the store contents above marked discarded."]
        }
        let certain = discarded.filter { $0.policy == nil }
        let policies = discarded.filter { $0.policy != nil }
        if !certain.isEmpty {
            lines.append("\(indent)\(dryRun ? "Would discard" : "Discarded") (not carried\(target)):")
            lines += certain.map { "\(indent)  \($0)" }
        } else {
            lines.append("\(indent)Discarded by the mappings: nothing.")
        }
        // Data only a policy's code may read: Molt cannot see whether it does, so this is said
        // as a fact about the mappings, not as a loss (a policy that carries it is the usual case).
        if !policies.isEmpty {
            lines.append(
                "\(indent)Left to the policies (no mapping reads them; \(dryRun ? "they would be" : "they are") kept only where the policy's code writes them):"
            )
            lines += policies.map { "\(indent)  \($0.subject) (policy \($0.policy ?? ""))" }
        }
        return lines
    }
}
