import Foundation
import Molt

/// The benchmark's object model, as an Xcode `.xcdatamodeld` with one version per measured
/// change. `V1` is the source: a `Record` entity with eight attributes, a to-one (`owner`) and a
/// to-many (`tags`, many-to-many) to a second entity, `Tag`.
enum BenchModels {
    enum Version: String, CaseIterable {
        /// The source.
        case v1 = "V1"
        /// Every attribute the same (a new version hash only): a copy mapping.
        case copy = "Copy"
        /// Two new attributes a policy computes per object (string and date work).
        case transform = "Transform"
        /// The transform's, with a fetch index on `Tag.label` (what a policy that fetches
        /// destination Tags by label declares, in Core Data as in Molt).
        case lookup = "Lookup"
        /// A new optional attribute: `ALTER TABLE … ADD COLUMN`.
        case addColumn = "AddColumn"
        /// `note` renamed `remark` (renaming identifier).
        case rename = "Rename"
        /// Every attribute the same, and a Record's tags and a Tag's owned Records ordered (the
        /// object path's relate pass keeps order positions on both kinds of storage).
        case ordered = "Ordered"
        /// `ratio` removed: the table is rebuilt (`INSERT … SELECT` into a new table).
        case rebuild = "Rebuild"
        /// A new `keywords` attribute a mapping expression computes by walking the tags
        /// (`join($source.tags.label, ", ")`, as the Blog example does).
        case keywords = "Keywords"
    }

    /// Writes `Bench.xcdatamodeld` with every version into `folder`.
    static func write(into folder: URL) throws -> URL {
        let bundle = folder.appendingPathComponent("Bench.xcdatamodeld")
        for version in Version.allCases {
            let modelFolder = bundle.appendingPathComponent("\(version.rawValue).xcdatamodel")
            try FileManager.default.createDirectory(at: modelFolder, withIntermediateDirectories: true)
            try contents(version).write(
                to: modelFolder.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        }
        return bundle
    }

    /// One version of the bundle `write(into:)` made.
    static func load(_ name: String, from bundle: URL) throws -> ObjectModel {
        try ModelLoader().loadVersion(at: bundle.appendingPathComponent("\(name).xcdatamodel"), name: name)
    }

    static func contents(_ version: Version) -> String {
        let modifier = version == .v1 ? "" : #" versionHashModifier="\#(version.rawValue)""#
        let note =
            version == .rename
            ? #"<attribute name="remark" optional="YES" attributeType="String" elementID="note"/>"#
            : #"<attribute name="note" optional="YES" attributeType="String"/>"#
        let count =
            #"<attribute name="count" optional="YES" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>"#
        let ratio =
            version == .rebuild
            ? ""
            : #"<attribute name="ratio" optional="YES" attributeType="Float" defaultValueString="0.0" usesScalarValueType="YES"/>"#
        let ordered = version == .ordered ? #" ordered="YES""# : ""
        var extra = ""
        switch version {
        case .transform, .lookup:
            extra = """
                <attribute name="title" optional="YES" attributeType="String"/>
                        <attribute name="day" optional="YES" attributeType="String"/>
                """
        case .addColumn:
            extra = #"<attribute name="extra" optional="YES" attributeType="String"/>"#
        case .keywords:
            extra = #"<attribute name="keywords" optional="YES" attributeType="String"/>"#
        default: break
        }
        return """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
                <entity name="Record" representedClassName="Record" syncable="YES"\(modifier)>
                    <attribute name="name" attributeType="String"/>
                    \(note)
                    \(count)
                    <attribute name="amount" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                    <attribute name="created" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                    <attribute name="flag" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
                    <attribute name="code" optional="YES" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                    \(ratio)
                    \(extra)
                    <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Tag" inverseName="owned" inverseEntity="Tag"/>
                    <relationship name="tags" optional="YES" toMany="YES"\(ordered) deletionRule="Nullify" destinationEntity="Tag" inverseName="records" inverseEntity="Tag"/>
                </entity>
                <entity name="Tag" representedClassName="Tag" syncable="YES"\(modifier)>
                    <attribute name="label" attributeType="String"/>
                    <relationship name="owned" optional="YES" toMany="YES"\(ordered) deletionRule="Nullify" destinationEntity="Record" inverseName="owner" inverseEntity="Record"/>
                    <relationship name="records" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Record" inverseName="tags" inverseEntity="Record"/>
                    \(version == .lookup ? #"<fetchIndex name="byLabel"><fetchIndexElement property="label" type="Binary" order="ascending"/></fetchIndex>"# : "")
                </entity>
            </model>
            """
    }
}
