import Foundation
import MoltStore
import Testing

@testable import MoltMigration

/// The batches of ``CopyWorkers`` come back in the source order whichever thread ran them,
/// and the taking thread runs batches itself (as worker `workers`) while the next one is not
/// ready.
@Suite("Copy workers and the writing thread's help")
struct CopyWorkersTests {
    /// Where each object was run: which worker index, on which thread.
    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var runs: [Int64: (worker: Int, thread: ObjectIdentifier)] = [:]
        func record(_ key: Int64, worker: Int) {
            lock.withLock { runs[key] = (worker, ObjectIdentifier(Thread.current)) }
        }
        var all: [Int64: (worker: Int, thread: ObjectIdentifier)] { lock.withLock { runs } }
    }

    /// `batches` batches of `size` objects with keys 1, 2, 3… read in turn; reading batch
    /// `failAt` throws.
    final class Source: @unchecked Sendable {
        var next: Int64 = 1
        let batches: Int
        let size: Int
        let failAt: Int?
        var read = 0
        init(batches: Int, size: Int, failAt: Int? = nil) {
            (self.batches, self.size, self.failAt) = (batches, size, failAt)
        }
        struct Broken: Error {}
        /// Called under the source lock, as the workers do.
        func nextBatch() throws -> [StoredObject]? {
            defer { read += 1 }
            if read == failAt { throw Broken() }
            guard read < batches else { return nil }
            defer { next += Int64(size) }
            return (next..<next + Int64(size)).map { StoredObject(id: ObjectID(entity: "Record", primaryKey: $0)) }
        }
    }

    /// Takes every batch on this thread, and returns the keys in the order taken.
    static func takeAll(_ workers: CopyWorkers) throws -> [Int64] {
        var keys: [Int64] = []
        while let batch = try workers.next() {
            keys += batch.objects.map(\.id.primaryKey)
            for (object, outcome) in zip(batch.objects, batch.outcomes) {
                guard case .inOrder(let text) = outcome else {
                    Issue.record("unexpected outcome for \(object.id.primaryKey)")
                    continue
                }
                #expect(text == "ran \(object.id.primaryKey)", "each outcome is its own object's")
            }
            workers.giveBack(batch)
        }
        return keys
    }

    @Test("a slow worker: the taking thread runs batches too, and every batch comes back once, in order")
    func writerHelps() throws {
        let source = Source(batches: 40, size: 5)
        let seen = Seen()
        let workers = CopyWorkers(
            workers: 1, window: 3, sourceLock: NSLock(), isCancelled: { nil },
            read: { try source.nextBatch() },
            process: { worker, object, sequence in
                // The worker thread is slow; the taking thread (index 1) is not.
                if worker == 0 { Thread.sleep(forTimeInterval: 0.002) }
                seen.record(object.id.primaryKey, worker: worker)
                // Objects are numbered in the source order, whoever runs them.
                return .inOrder(sequence == object.id.primaryKey - 1 ? "ran \(object.id.primaryKey)" : "misnumbered")
            })
        workers.start()
        let keys: [Int64]
        do {
            defer { workers.stop() }
            keys = try Self.takeAll(workers)
        }
        #expect(keys == Array(1...200))
        let runs = seen.all
        #expect(runs.count == 200)
        let here = ObjectIdentifier(Thread.current)
        let helped = runs.values.filter { $0.worker == 1 }
        #expect(!helped.isEmpty, "the taking thread ran batches while the worker was slow")
        #expect(helped.allSatisfy { $0.thread == here }, "index `workers` is the taking thread")
        #expect(runs.values.filter { $0.worker == 0 }.allSatisfy { $0.thread != here })
    }

    @Test("a batch that fails to read: the batches before it, then its error, whoever read it")
    func readFailure() throws {
        for _ in 0..<20 {
            let source = Source(batches: 30, size: 4, failAt: 7)
            let workers = CopyWorkers(
                workers: 1, window: 3, sourceLock: NSLock(), isCancelled: { nil },
                read: { try source.nextBatch() },
                process: { _, object, _ in .inOrder("ran \(object.id.primaryKey)") })
            workers.start()
            defer { workers.stop() }
            var keys: [Int64] = []
            #expect(throws: Source.Broken.self) {
                while let batch = try workers.next() {
                    keys += batch.objects.map(\.id.primaryKey)
                    workers.giveBack(batch)
                }
            }
            #expect(keys == Array(1...28), "the seven batches read before the failure")
        }
    }

    @Test("a cancelled run: the taking thread gets the cancellation, not a batch after it")
    func cancellation() throws {
        struct Cancelled: Error {}
        let source = Source(batches: 1000, size: 8)
        let cancelled = Seen()
        let workers = CopyWorkers(
            workers: 1, window: 3, sourceLock: NSLock(),
            isCancelled: { cancelled.all.count >= 40 ? Cancelled() : nil },
            read: { try source.nextBatch() },
            process: { worker, object, _ in
                cancelled.record(object.id.primaryKey, worker: worker)
                return .inOrder("ran \(object.id.primaryKey)")
            })
        workers.start()
        defer { workers.stop() }
        var taken = 0
        #expect(throws: Cancelled.self) {
            while let batch = try workers.next() {
                taken += batch.objects.count
                workers.giveBack(batch)
            }
        }
        #expect(taken < 8000, "the run stopped early")
    }

    /// Weak references to the recordings a run made.
    final class Made: @unchecked Sendable {
        private let lock = NSLock()
        private var recordings: [Weak] = []
        struct Weak { weak var recording: CopyRecording? }
        func add(_ recording: CopyRecording) { lock.withLock { recordings.append(Weak(recording: recording)) } }
        var alive: Int { lock.withLock { recordings.filter { $0.recording != nil }.count } }
        var count: Int { lock.withLock { recordings.count } }
    }

    @Test("once stopped, the workers hold nothing of the run, even while a thread still holds them")
    func stopLetsGo() throws {
        let source = Source(batches: 12, size: 4)
        let made = Made()
        var workers: CopyWorkers? = CopyWorkers(
            workers: 1, window: 100, sourceLock: NSLock(), isCancelled: { nil },
            read: { try source.nextBatch() },
            process: { _, _, sequence in
                // In a run, a recording holds the new store's insert plans (their statements).
                let recording = CopyRecording(sequence: sequence, plans: [:], defaultRow: nil)
                made.add(recording)
                return .recorded(recording)
            })
        workers?.start()
        // Every batch taken and kept until the worker is gone (it frees what it is given back
        // before it reads again), then given back: only stop() is left to drop them.
        var taken: [CopyWorkers.Batch] = []
        while let batch = try workers?.next() { taken.append(batch) }
        Thread.sleep(forTimeInterval: 0.1)
        for batch in taken { workers?.giveBack(batch) }
        taken = []
        #expect(made.count == 48)
        // What a worker's exiting thread does: keep the object a moment longer.
        let stillHeld = workers
        workers?.stop()
        workers = nil
        #expect(made.alive == 0, "every recording is freed when stop returns")
        withExtendedLifetime(stillHeld) {}
    }
}
