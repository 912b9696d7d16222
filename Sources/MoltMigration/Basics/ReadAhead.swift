internal import Foundation

/// Runs `produce` on a thread of its own, at most `depth` items ahead of the caller, who takes
/// them in order with ``next()``: what one stage computes while the caller writes what the
/// stage computed before. `produce` returns nil when there is nothing more; what it throws is
/// thrown by the `next()` that would have returned its item, after every item before it.
/// ``stop()`` (always called, also on an error) waits for the thread to end, so nothing runs
/// `produce` once it returns.
final class ReadAhead<Item>: @unchecked Sendable {
    private var produce: (() throws -> Item?)?
    private let depth: Int
    private let condition = NSCondition()
    private let finished = DispatchGroup()
    // Under `condition`.
    private var ready: [Result<Item, any Error>] = []
    private var done = false
    private var stopping = false

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

    /// Stops the thread and waits for it to end.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
        finished.wait()
        produce = nil
    }

    private func run() {
        guard let produce else { return }
        while true {
            condition.lock()
            while !stopping, ready.count >= depth { condition.wait() }
            let stop = stopping
            condition.unlock()
            if stop { return }
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
