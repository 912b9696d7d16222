/// Inference across composite attributes (SwiftData's struct properties): a traveller with a
/// home and a work address (one composite used by two attributes) holding a nested position,
/// and trips that keep a position too.
extension InferenceCases {
    static let compositeCases: [InferenceCase] = [
        InferenceCase(
            "composite leaf and attribute added",
            rule: "a leaf added to a composite takes its default value, as a new attribute does",
            source: travellers(), destination: travellers(addressExtra: [zip], travellerExtra: [age])),
        InferenceCase(
            "composite leaf removed", rule: "a leaf removed from a composite drops its values",
            source: travellers(addressExtra: [zip]), destination: travellers()),
        InferenceCase(
            "composite element renamed",
            rule: "an element renamed with a renaming identifier keeps its values under the new name",
            source: travellers(),
            destination: travellers(
                street: #"<attribute name="road" optional="YES" attributeType="String" elementID="street"/>"#)),
        InferenceCase(
            "composite attribute added", rule: "a new optional composite attribute starts empty",
            source: travellers(),
            destination: travellers(
                travellerExtra: [
                    #"<attribute name="holiday" optional="YES" attributeType="Composite" composite="Address"/>"#
                ])),
        InferenceCase(
            "composite attribute removed", rule: "a removed composite attribute drops every leaf",
            source: travellers(), destination: travellers(withWork: false)),
    ]

    public static let zip = #"<attribute name="zip" optional="YES" attributeType="String" defaultValueString="00000"/>"#
    public static let age =
        #"<attribute name="age" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>"#

    /// Traveller (home and work addresses) ↔ Trip (a position), with the composites Address
    /// (street, city, a nested Geo) and Geo.
    public static func travellers(
        street: String = #"<attribute name="street" optional="YES" attributeType="String"/>"#,
        addressExtra: [String] = [], travellerExtra: [String] = [], withWork: Bool = true
    ) -> String {
        let work =
            withWork ? [#"<attribute name="work" optional="YES" attributeType="Composite" composite="Address"/>"#] : []
        let traveller =
            [
                #"<attribute name="home" optional="YES" attributeType="Composite" composite="Address"/>"#,
                #"<attribute name="name" attributeType="String" defaultValueString="Someone"/>"#,
            ] + work + travellerExtra + [
                #"<relationship name="trips" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Trip" inverseName="traveller" inverseEntity="Trip"/>"#
            ]
        let trip = [
            #"<attribute name="position" optional="YES" attributeType="Composite" composite="Geo"/>"#,
            #"<attribute name="title" attributeType="String" defaultValueString="Trip"/>"#,
            #"<relationship name="traveller" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Traveller" inverseName="trips" inverseEntity="Traveller"/>"#,
        ]
        let address =
            [street, #"<attribute name="city" attributeType="String" defaultValueString="Paris"/>"#]
            + addressExtra + [#"<attribute name="geo" optional="YES" attributeType="Composite" composite="Geo"/>"#]
        let geo = [
            #"<attribute name="latitude" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>"#,
            #"<attribute name="longitude" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>"#,
        ]
        return [
            entity("Traveller", traveller), entity("Trip", trip), composite("Address", address),
            composite("Geo", geo),
        ].joined(separator: "\n")
    }

    static func composite(_ name: String, _ elements: [String]) -> String {
        "<composite name=\"\(name)\">\n" + elements.map { "    " + $0 }.joined(separator: "\n") + "\n</composite>"
    }
}
