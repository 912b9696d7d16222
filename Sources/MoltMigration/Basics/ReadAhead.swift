internal import Foundation

/// Runs `produce` on a thread of its own, at most `depth` items ahead of the caller, who takes
/// them in order with ``next()``: what one stage computes while the caller writes what the
/// stage computed before. `produce` returns nil when there is nothing more; what it throws is
/// thrown by the `next()` that would have returned its item, after every item before it.
/// ``stop()`` (always called, also on an error) waits for the thread to end, so nothing runs
/// `produce` once it returns. The caller may give an item back once done with it
/// (``giveBack(_:)``): the thread frees it, not the caller, whom the thread keeps waiting less
/// often than the other way round.
final class ReadAhead<Item>: @unchecked Sendable {
    private var produce: (() throws -> Item?)?
    private let depth: Int
    private let condition = NSCondition()
    private let finished = DispatchGroup()
    // Under `condition`.
    private var ready: [Result<Item, any Error>] = []
    private var done = false
    private var stopping = false
    private var spent: [Item] = []

    init(depth: Int, produce: @escaping () throws -> Item?) {
        self.depth = max(1, depth)
        self.produce = produce
    }

    /// Starts the thread.
    func start() {
        finished.enter()
        let thread = Thread { [self] in
            run()
            finished.leave()
        }
        thread.name = "molt read-ahead"
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// The next item, waiting for it; nil when there are no more.
    func next() throws -> Item? {
        condition.lock()
        while ready.isEmpty, !done { condition.wait() }
        let item = ready.isEmpty ? nil : ready.removeFirst()
        condition.broadcast()
        condition.unlock()
        return try item?.get()
    }

    /// Hands an item taken with ``next()`` back, for the thread to free (freed here once the
    /// thread has ended).
    func giveBack(_ item: consuming Item) {
        condition.lock()
        if !done, !stopping { spent.append(item) }
        condition.unlock()
    }

    /// Stops the thread and waits for it to end, then drops here what it still holds (the
    /// thread keeps this object a moment after it said it ended: what it would free then must
    /// not outlive the caller's run).
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
        finished.wait()
        produce = nil
        condition.lock()
        let left = (ready, spent)
        ready = []
        spent = []
        condition.unlock()
        withExtendedLifetime(left) {}
    }

    private func run() {
        guard let produce else { return }
        var freed: [Item] = []
        while true {
            condition.lock()
            while !stopping, ready.count >= depth, spent.isEmpty { condition.wait() }
            swap(&freed, &spent)
            let stop = stopping
            let full = ready.count >= depth
            condition.unlock()
            freed.removeAll()
            if stop { return }
            if full { continue }
            let result = Result { try produce() }
            condition.lock()
            switch result {
            case .success(let item?): ready.append(.success(item))
            case .success(nil): done = true
            case .failure(let error):
                ready.append(.failure(error))
                done = true
            }
            let ended = done
            condition.broadcast()
            condition.unlock()
            if ended { return }
        }
    }
}
