import Foundation
import Molt
import MoltSQLite
import MoltTestSupport
import Testing

/// `molt migrate` of a store with external data, killed (SIGKILL) at every fault point it
/// reaches: at every instant the store reads as the complete old or new version, files
/// included, recovery and the next run finish the job, and nothing is left but the store and
/// its support folder.
@Suite(
    "External data: a migration killed at every fault point",
    .enabled(if: Tool.available, "the molt executable was not built"))
struct ExternalDataCrashTests {
    let folder = TemporaryDirectory()
    let large = ExternalDataFixtures.bytes(300_000, seed: 21)
    let thumbnail = ExternalDataFixtures.bytes(200_000, seed: 22)
    let small = ExternalDataFixtures.bytes(700, seed: 23)
    let orphan = "11111111-2222-3333-4444-555555555555"

    /// Version 2 moves external storage from `image` to `thumbnail`: the images' files are no
    /// longer used, the long thumbnail gets a new file.
    func bundle() throws -> URL {
        let second = ExternalDataFixtures.swappedStorageEntities
        return try ModelXML.writeBundle(
            "Photos", versions: [("Photos 1", ExternalDataFixtures.entities), ("Photos 2", second)],
            current: "Photos 2",
            in: folder)
    }

    /// A fresh store in `run` (a folder of its own) with two images in files and one in the row.
    func store(in run: String) throws -> URL {
        let target = TemporaryDirectory()
        let (url, external, insert) = try ExternalDataFixtures.handMadeStore(in: target)
        try large.write(to: external.appendingPathComponent("0B5F6A31-7C3E-4E08-9D57-2A7C8E0F4B1D"))
        try Data("no one's".utf8).write(to: external.appendingPathComponent(orphan))
        try insert(1, ExternalDataFixtures.reference("0B5F6A31-7C3E-4E08-9D57-2A7C8E0F4B1D"), .blob(thumbnail))
        try insert(2, ExternalDataFixtures.inline(small), .blob(small))
        let destination = folder.path(run)
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: url, to: destination.appendingPathComponent("Photos.sqlite"))
        try FileManager.default.copyItem(
            at: CompanionFiles.supportFolder(of: url), to: destination.appendingPathComponent(".Photos_SUPPORT"))
        return destination.appendingPathComponent("Photos.sqlite")
    }

    /// 1 or 2 when the store reads completely as that version (every value, files included).
    func version(of url: URL, bundle: URL) throws -> Int {
        let store = try ObjectStore.open(at: url, models: .bundle(try ModelBundle(url: bundle)))
        let photos = try store.objects(of: "Photo").all()
        let values = photos.map { [$0.attributes["image"], $0.attributes["thumbnail"]] }
        #expect(values == [[.data(large), .data(thumbnail)], [.data(small), .data(small)]], "\(url.path)")
        return store.model.name == "Photos 1" ? 1 : 2
    }

    @Test("killed at each fault point, the store is the old or the new one; recovery and a rerun finish it")
    func killedEverywhere() throws {
        let bundle = try bundle()
        let traced = try store(in: "trace")
        let trace = try Tool.run(
            ["migrate", traced.path, "--from", bundle.path, "--to", bundle.path], environment: ["MOLT_FAULT_TRACE": "1"]
        )
        #expect(trace.status == 0, "\(trace.stderr)")
        var points: [String] = []
        for line in trace.stderr.split(separator: "\n") where line.hasPrefix("molt-fault-point: ") {
            let point = String(line.dropFirst("molt-fault-point: ".count))
            if !points.contains(point) { points.append(point) }
        }
        #expect(points.contains("swap.renamed") && points.contains("swap.old-files-removed"), "\(points)")
        #expect(try version(of: traced, bundle: bundle) == 2)
        let expectedFiles = ExternalDataFixtures.files(of: traced)
        #expect(expectedFiles.count == 2 && expectedFiles.contains(orphan), "\(expectedFiles)")

        var kills = 0
        for (index, point) in points.enumerated() {
            let url = try store(in: "run-\(index)")
            let killed = try Tool.run(
                ["migrate", url.path, "--from", bundle.path, "--to", bundle.path],
                environment: ["MOLT_FAULT_POINT": point])
            #expect(killed.status == 137 || killed.status == 0, "\(point): \(killed.stderr)")
            if killed.status == 137 { kills += 1 }
            let before = try version(of: url, bundle: bundle)
            let recovered = try Tool.run(["recover", url.path])
            #expect(recovered.status == 0, "\(point): \(recovered.stderr)")
            let after = try version(of: url, bundle: bundle)
            #expect(after >= before, "\(point): recovery went back from \(before) to \(after)")
            if after == 1 {
                let rerun = try Tool.run(["migrate", url.path, "--from", bundle.path, "--to", bundle.path])
                #expect(rerun.status == 0, "\(point): \(rerun.stderr)")
            }
            #expect(try version(of: url, bundle: bundle) == 2, "\(point)")
            let files = ExternalDataFixtures.files(of: url)
            #expect(files.count == expectedFiles.count && files.contains(orphan), "\(point): \(files)")
            let left = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
                .sorted()
            #expect(left == [".Photos_SUPPORT", "Photos.sqlite"], "\(point): \(left)")
        }
        #expect(points.count >= 10 && kills == points.count, "\(kills) kills at \(points.count) points: \(points)")
    }

}
