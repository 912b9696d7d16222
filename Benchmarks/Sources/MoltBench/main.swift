import Foundation
import Molt

// molt-bench: Molt against what a user would do without it, side by side in one run.
//
//   molt-bench [--objects 100000,1000000] [--runs 1] [--markdown FILE] [--keep]
//
// For each size a store is generated (N Records with eight attributes, N/10 Tags; each Record
// has an owner and two tags), then every job runs in a child process of its own on a fresh
// copy, so times and peak memory are each run's own. Ratios are Molt's time over the
// baseline's, measured minutes apart on the same machine: compare ratios, not seconds.

let arguments = Array(CommandLine.arguments.dropFirst())

func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

/// The stages' order in a job's line.
func order(_ stage: String) -> Int {
    ["open", "copy", "relate", "validate"].firstIndex(of: stage) ?? 4
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("molt-bench: \(message)\n".utf8))
    exit(1)
}

if arguments.first == "job" {
    // A child: run one job, print its result as one JSON line.
    guard arguments.count >= 2, let store = option("--store"), let models = option("--models"),
        let log = option("--sql")
    else { fail("usage: molt-bench job NAME --store PATH --models PATH --sql PATH") }
    do {
        let cpuBefore = cpuSeconds()
        let writerBefore = cpuSeconds(thisThreadOnly: true)
        var result = try Jobs.run(
            arguments[1], store: URL(fileURLWithPath: store), models: URL(fileURLWithPath: models),
            sqlLog: URL(fileURLWithPath: log))
        result.cpuSeconds = cpuSeconds() - cpuBefore
        result.writerCPUSeconds = cpuSeconds(thisThreadOnly: true) - writerBefore
        print(String(decoding: try JSONEncoder().encode(result), as: UTF8.self))
        exit(0)
    } catch {
        fail("\(arguments[1]): \(error)")
    }
}

if arguments.contains("--help") || arguments.contains("-h") {
    print(
        """
        usage: molt-bench [--objects N[,N…]] [--runs R] [--markdown FILE] [--keep]

          --objects   Records per generated store (plus one Tag per ten Records); default 100000
          --tags      Tags per store, whatever its size (shared by more Records as stores grow:
                      the scaling shape of a value that walks shared to-many targets)
          --runs      runs of each job, interleaved; the median time is reported (default 1)
          --jobs      only these jobs, comma-separated (default: all of \(Jobs.names.joined(separator: ", ")))
          --markdown  also write the tables to FILE
          --keep      keep the generated stores (printed folder)
        """)
    exit(0)
}

let sizes = (option("--objects") ?? "100000").split(separator: ",").compactMap { Int($0) }
let runs = Int(option("--runs") ?? "1") ?? 1
let selected = option("--jobs").map { $0.split(separator: ",").map(String.init) } ?? Jobs.names
if let unknown = selected.first(where: { !Jobs.names.contains($0) }) { fail("unknown job \(unknown)") }
guard !sizes.isEmpty, runs > 0 else { fail("--objects takes numbers, --runs a positive number") }

var output = Report()
var bySize: [Int: [String: JobResult]] = [:]
for size in sizes {
    let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
        "molt-bench-\(size)-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { if !arguments.contains("--keep") { try? FileManager.default.removeItem(at: folder) } }
    let models = try BenchModels.write(into: folder)
    let base = folder.appendingPathComponent("base.sqlite")
    let generated = DispatchTime.now()
    let tags = option("--tags").flatMap { Int($0) }.map { max(2, $0) } ?? StoreGenerator.tagCount(records: size)
    try StoreGenerator.make(
        at: base, model: try BenchModels.load("V1", from: models), records: size, tags: tags)
    let objects = size + tags
    FileHandle.standardError.write(
        Data(
            "generated \(objects) objects in \(String(format: "%.1f", seconds(since: generated))) s at \(folder.path)\n"
                .utf8))

    var results: [String: JobResult] = [:]
    let jobs = Jobs.names.filter { selected.contains($0) }
    // Runs interleaved (each job's first run, then each job's second, …): a machine whose
    // speed drifts over the minutes slows every job alike, so the ratios stay fair.
    var samplesByJob: [String: [JobResult]] = [:]
    for run in 0..<runs {
        for job in jobs {
            let work = folder.appendingPathComponent("\(job)-\(run)")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            let store = work.appendingPathComponent("Store.sqlite")
            try FileManager.default.copyItem(at: base, to: store)
            let log = folder.appendingPathComponent("\(job.split(separator: "-").last!).sql")
            samplesByJob[job, default: []].append(try ChildJob.run(job, store: store, models: models, sqlLog: log))
            try? FileManager.default.removeItem(at: work)
        }
    }
    for job in jobs {
        let samples = samplesByJob[job] ?? []
        let median = samples.sorted { $0.seconds < $1.seconds }[samples.count / 2]
        results[job] = median
        let stages = (median.stages ?? [:]).sorted { order($0.key) < order($1.key) }.map {
            "\($0.key) \(String(format: "%.3f", $0.value))"
        }
        FileHandle.standardError.write(
            Data(
                ("  \(job): \(String(format: "%.3f", median.seconds)) s, cpu \(String(format: "%.2f", median.cpuSeconds ?? 0)) s (writing thread \(String(format: "%.2f", median.writerCPUSeconds ?? 0)) s), peak \(String(format: "%.0f", median.peakMB)) MB"
                    + (stages.isEmpty ? "" : " (\(stages.joined(separator: " · ")))") + "\n").utf8))
    }
    bySize[size] = results
    output.addSize(size: size, objects: objects, results: results)
}
output.addScaling(bySize)
print(output.text)
if let file = option("--markdown") {
    try output.text.write(toFile: file, atomically: true, encoding: .utf8)
}
