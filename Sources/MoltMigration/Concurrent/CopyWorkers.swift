internal import Foundation
internal import MoltMapping
internal import MoltStore

/// Threads that read a mapping's source objects a batch at a time and run each object's hook,
/// recording what it makes (``CopyRecording``), while the writing thread takes the batches
/// back in the order they were read (``next()``) and writes them.
///
/// - Order: a worker reads the next batch under the source lock, so batches are numbered in
///   the source order; the writing thread takes batch 0, 1, 2… whichever worker finishes first.
/// - Memory: at most `window` batches are read and not yet taken, so memory is flat whatever
///   the store's size.
/// - Freeing: the writing thread gives each batch back once written (``giveBack(_:)``), and a
///   worker frees it before reading its next one: freeing a batch's objects and recordings is
///   a good share of an object's cost, and the writing thread is the one every other waits for.
/// - Help: when the batch it needs next is not done, the writing thread does not sleep: while
///   there is room in the window and the source is not done, it reads and runs the next batch
///   itself, as one more worker (index `workers`), then takes batches in order again. Where a
///   policy's hook is most of an object's work the writing thread would otherwise wait for a
///   quarter of the pass (measured: 170–255 ms of a 0.8 s copy of 100k objects on two cores);
///   helping, it fills that time and the run needs one worker thread fewer. Which thread ran
///   a batch changes nothing in the store: every batch is written in order.
/// - Stopping: ``stop()`` (always called, also on an error) wakes and joins every worker
///   before the pass goes on, so no worker touches the run's state afterwards. A worker that
///   stops early (cancellation, a read error) hands over its batch number with the error, so
///   the writing thread never waits for a batch that will not come.
final class CopyWorkers: @unchecked Sendable {
    /// What became of one source object on a worker.
    enum Outcome {
        /// Its hook ran; the writes to do.
        case recorded(CopyRecording)
        /// Made by default (no hook of the policy's own): the row of the one object, which the
        /// writing thread inserts and associates, as `createDefaultDestinationInstance` does.
        case defaultRow(entity: String, row: [AttributeValue?])
        /// Its hook made a call only the writing thread answers: run it again there.
        case inOrder(String)
        /// Its hook threw after recording these writes (done first, as on one thread).
        case failed(CopyRecording, any Error)
    }

    /// One batch as the writing thread takes it: the objects read, each with its outcome.
    struct Batch {
        var objects: [StoredObject]
        var outcomes: [Outcome]
    }

    /// How many objects a worker runs between two looks at cancellation and stopping.
    static let checkEvery = 32

    /// Reads the next batch of source objects (nil: no more); called under the source lock.
    typealias Read = () throws -> [StoredObject]?
    /// Runs one object's hook on a worker (given the worker's index and the object's number).
    /// Index `workers` is the writing thread, when it helps.
    typealias Process = (_ worker: Int, _ object: StoredObject, _ sequence: Int64) -> Outcome

    // Dropped by ``stop()``: they hold the run's state, which must not outlive the pass.
    private var read: Read?
    private var process: Process?
    private let sourceLock: NSLock
    private let isCancelled: () -> (any Error)?
    private let condition = NSCondition()
    private let window: Int
    private let workers: Int
    private let finishedThreads = DispatchGroup()

    // Under `sourceLock`: how many batches were read, and whether the source is done.
    private var batchesRead = 0
    private var objectsRead: Int64 = 0
    private var sourceDone = false
    // Under `condition`: finished batches by number, where the source ended, and stopping.
    private var finished: [Int: Result<Batch, any Error>] = [:]
    private var lastBatch: Int?
    private var stopping = false
    private var nextToTake = 0
    /// Batches workers have started reading and the writing thread has not taken.
    private var reserved = 0
    /// Batches written, for a worker to free.
    private var spent: [Batch] = []

    init(
        workers: Int, window: Int, sourceLock: NSLock, isCancelled: @escaping () -> (any Error)?,
        read: @escaping Read, process: @escaping Process
    ) {
        self.workers = workers
        self.window = max(1, window)
        self.sourceLock = sourceLock
        self.isCancelled = isCancelled
        self.read = read
        self.process = process
    }

    /// Starts the worker threads.
    func start() {
        for index in 0..<workers {
            finishedThreads.enter()
            let thread = Thread { [self] in
                work(index)
                finishedThreads.leave()
            }
            thread.name = "molt copy worker \(index + 1)"
            // A policy's hook runs here: as much stack as the main thread has.
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// The next batch in the source order, waiting for it; nil once every batch was taken.
    /// Throws what reading it threw, or the cancellation that stopped its worker.
    func next() throws -> Batch? {
        condition.lock()
        var helping = true
        while finished[nextToTake] == nil, lastBatch.map({ nextToTake < $0 }) ?? true {
            // Help rather than wait, while a batch may still be read and there is room for it.
            if helping, lastBatch == nil, !stopping, reserved < window {
                reserved += 1
                condition.unlock()
                helping = runBatch(as: workers)
                condition.lock()
                continue
            }
            condition.wait()
        }
        let taken = finished.removeValue(forKey: nextToTake)
        if taken != nil {
            nextToTake += 1
            reserved -= 1
            condition.broadcast()
        }
        condition.unlock()
        return try taken?.get()
    }

    /// Hands a written batch back, for a worker to free (the last batches are freed with the
    /// workers).
    func giveBack(_ batch: consuming Batch) {
        condition.lock()
        spent.append(batch)
        condition.unlock()
    }

    /// Stops the workers and waits for every one to end, then drops, on this thread, whatever
    /// of the run it still holds: the closures, and the batches not freed yet (a recording
    /// holds the new store's insert statements). A worker's thread keeps this object a moment
    /// after it said it ended; what it would free then could keep the new store's connection
    /// open as the store is completed.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
        finishedThreads.wait()
        read = nil
        process = nil
        condition.lock()
        let left = (spent, finished)
        spent = []
        finished = [:]
        condition.unlock()
        withExtendedLifetime(left) {}
    }

    private var isStopping: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopping
    }

    /// Waits until fewer than `window` batches are out, and takes a place for one; false when
    /// stopping. Frees the batches written meanwhile, outside the lock.
    private func reserve() -> Bool {
        var freed: [Batch] = []
        while true {
            condition.lock()
            while !stopping, reserved >= window, spent.isEmpty { condition.wait() }
            swap(&freed, &spent)
            let stop = stopping
            let placed = !stop && reserved < window
            if placed { reserved += 1 }
            condition.unlock()
            freed.removeAll()
            if stop { return false }
            if placed { return true }
        }
    }

    /// Gives back a place no batch will fill.
    private func release() {
        condition.lock()
        reserved -= 1
        condition.broadcast()
        condition.unlock()
    }

    /// One worker: read a batch, run its objects, hand it over; until the source is done.
    private func work(_ index: Int) {
        while reserve(), runBatch(as: index) {}
    }

    /// Reads the next batch into the place reserved for it, runs its objects as worker
    /// `index` and hands it over; false when there is nothing more to do (the source is done,
    /// it failed, the run is cancelled or stopping).
    private func runBatch(as index: Int) -> Bool {
        guard let read, let process else {
            release()
            return false
        }
        sourceLock.lock()
        if sourceDone {
            sourceLock.unlock()
            release()
            return false
        }
        let number = batchesRead
        let first = objectsRead
        let result = Result { try read() }
        switch result {
        case .success(let batch?):
            batchesRead += 1
            objectsRead += Int64(batch.count)
        default:
            sourceDone = true
        }
        sourceLock.unlock()
        switch result {
        case .success(nil):
            hand(over: nil, at: number)
            return false
        case .failure(let error):
            hand(over: .failure(error), at: number)
            return false
        case .success(let objects?):
            var outcomes: [Outcome] = []
            outcomes.reserveCapacity(objects.count)
            for (offset, object) in objects.enumerated() {
                // Every so many objects (the locks are shared with the other threads):
                // the writing thread checks each object itself.
                if offset % Self.checkEvery == 0 {
                    if let error = isCancelled() {
                        hand(over: .failure(error), at: number)
                        return false
                    }
                    if isStopping { return false }
                }
                outcomes.append(process(index, object, first + Int64(offset)))
            }
            hand(over: .success(Batch(objects: objects, outcomes: outcomes)), at: number)
            return true
        }
    }

    /// Gives the writing thread batch `number` (nil: the source ended before it).
    private func hand(over result: Result<Batch, any Error>?, at number: Int) {
        condition.lock()
        if let result {
            finished[number] = result
            // Nothing is read after a failed batch.
            if case .failure = result { lastBatch = min(lastBatch ?? Int.max, number + 1) }
        } else {
            lastBatch = min(lastBatch ?? Int.max, number)
            reserved -= 1  // no batch fills this place
        }
        condition.broadcast()
        condition.unlock()
    }
}
