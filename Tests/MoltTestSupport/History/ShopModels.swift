/// The two versions of a small shop model that history tests migrate: Item ↔ Tag, then a new
/// attribute that sorts first (`amount`), `legacy` removed, a new to-one (`maker`, whose key
/// column is the first bit of an update's mask) and a new entity that moves Tag's number.
public enum ShopModels {
    /// Version 1's `<entity>` elements; `withColor` adds `Item.color`.
    public static func version1(withColor: Bool = false) -> String {
        let color = withColor ? "\n    " + #"<attribute name="color" optional="YES" attributeType="String"/>"# : ""
        return """
            <entity name="Item" representedClassName="Item">
                <attribute name="name" attributeType="String"/>
                <attribute name="price" optional="YES" attributeType="Double" usesScalarValueType="YES"/>\(color)
                <attribute name="legacy" optional="YES" attributeType="String"/>
                <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="items" inverseEntity="Tag"/>
            </entity>
            \(tag)
            """
    }

    /// Version 2's `<entity>` elements; `withColor` renames `color` to `hexColor` (its renaming
    /// identifier).
    public static func version2(withColor: Bool = false) -> String {
        let color =
            withColor
            ? "\n    " + #"<attribute name="hexColor" optional="YES" attributeType="String" elementID="color"/>"# : ""
        return """
            <entity name="Item" representedClassName="Item">
                <attribute name="amount" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="name" attributeType="String"/>
                <attribute name="price" optional="YES" attributeType="Double" usesScalarValueType="YES"/>\(color)
                <relationship name="maker" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Maker" inverseName="items" inverseEntity="Maker"/>
                <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="items" inverseEntity="Tag"/>
            </entity>
            <entity name="Maker" representedClassName="Maker">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="maker" inverseEntity="Item"/>
            </entity>
            \(tag)
            """
    }

    static let tag = """
        <entity name="Tag" representedClassName="Tag">
            <attribute name="name" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="tags" inverseEntity="Item"/>
        </entity>
        """
}
