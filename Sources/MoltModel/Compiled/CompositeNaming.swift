/// Names for the composites of a compiled model.
///
/// A compiled model (a store's `Z_MODELCACHE`) holds each composite attribute's elements inside
/// the attribute: the name Xcode's model gives the composite is not archived. Molt names one
/// after the first attribute that holds it, capitalized (`home` → `Home`), and a different
/// composite met under a name already given gets a number (`Home2`). Attributes with the same
/// elements share one composite. The names take no part in version hashes or the store.
struct CompositeNaming {
    private(set) var composites: [Composite] = []

    mutating func name(forElements elements: [Attribute], of attribute: String) -> String {
        if let same = composites.first(where: { $0.attributes == elements }) { return same.name }
        let base = attribute.prefix(1).uppercased() + attribute.dropFirst()
        var name = base
        var number = 2
        while composites.contains(where: { $0.name == name }) {
            name = base + String(number)
            number += 1
        }
        composites.append(Composite(name: name, attributes: elements))
        return name
    }
}
