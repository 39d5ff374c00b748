import CJPEGShim
import Foundation

/// The memory that decoders running at the same time may hold in whole-image buffers (a progressive JPEG's DCT
/// coefficients), shared by every thread of the process: a decode that needs more than is free waits until other
/// decodes give theirs back. With one decode's need capped at the same figure (`jpeg_shim_start` refuses more),
/// these buffers never add up to more than `capacity`, however many worker threads decode at once.
///
/// A reservation is taken after the header and given back when the decode ends, and nothing waits while holding
/// one, so waiting always ends.
final class DecoderMemoryBudget: @unchecked Sendable {
    /// The process's budget: the shim's limit for one image (250 MB).
    static let shared = DecoderMemoryBudget(capacity: Int(JPEG_SHIM_COEFFICIENT_BUFFER_LIMIT))

    /// Bytes all reservations together may hold.
    let capacity: Int
    private var available: Int
    // Guards `available`; decodes waiting for bytes wait on it.
    private let condition = NSCondition()

    init(capacity: Int) {
        self.capacity = capacity
        available = capacity
    }

    /// Takes `bytes` (at most `capacity`; 0 takes nothing), waiting while they are not free. Returns what was
    /// taken, to give back with `release`.
    func reserve(_ bytes: Int) -> Int {
        let amount = min(max(0, bytes), capacity)
        guard amount > 0 else { return 0 }
        condition.lock()
        while available < amount { condition.wait() }
        available -= amount
        condition.unlock()
        return amount
    }

    /// Gives back what `reserve` returned.
    func release(_ amount: Int) {
        guard amount > 0 else { return }
        condition.lock()
        available += amount
        condition.broadcast()
        condition.unlock()
    }
}
