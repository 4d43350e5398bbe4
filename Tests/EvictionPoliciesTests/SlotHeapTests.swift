@testable import EvictionPolicies
import Testing

/// The heaps' layouts, which decide the victim among equal priorities (Size, Belady).
@Suite("Slot heaps")
struct SlotHeapTests {
    @Test("PQueueMaxHeap moves entries as pqueue.c does, entry for entry, on random operations with many ties")
    func pqueueMaxHeap() {
        var heap = PQueueMaxHeap()
        var reference = PQueueReference()
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<20_000 {
            // Few distinct priorities, so ties are common and the layout decides the top.
            let priority = Double(generator.next() % 6)
            let slot = Int32(generator.next() % 200)
            switch generator.next() % 5 {
            case 0, 1:
                if reference.contains(slot) {
                    heap.update(slot, priority: priority)
                    reference.changePriority(slot, priority)
                } else {
                    heap.insert(slot, priority: priority)
                    reference.insert(slot, priority)
                }
            case 2:
                heap.remove(slot)
                reference.remove(slot)
            case 3:
                guard let top = reference.pop() else { #expect(heap.count == 0); continue }
                #expect(heap.popMaximum() == top)
            default:
                // Re-keying with the same priority: pqueue.c sifts down, which must move nothing.
                if let i = reference.position[slot] {
                    let same = reference.d[i].priority
                    heap.update(slot, priority: same)
                    reference.changePriority(slot, same)
                }
            }
            #expect(heap.heap.entries.dropFirst().map(\.slot) == reference.d.dropFirst().map(\.slot))
            #expect(heap.maximum == (reference.d.count > 1 ? reference.d[1].slot : -1))
            #expect(heap.count == reference.d.count - 1)
        }
    }

    @Test("IndexedMinHeap keeps every slot's position and the heap order through random operations")
    func indexedMinHeapPositions() {
        var heap = IndexedMinHeap()
        var generator = SeededGenerator(seed: 11)
        var held = Set<Int32>()
        for tick in Int64(1)...5_000 {
            let slot = Int32(generator.next() % 100)
            let priority = Double(generator.next() % 5)
            switch generator.next() % 3 {
            case 0:
                if held.contains(slot) { heap.update(slot, priority: priority, tie: tick) } else {
                    heap.insert(slot, priority: priority, tie: tick)
                }
                held.insert(slot)
            case 1:
                heap.remove(slot)
                held.remove(slot)
            default:
                if !heap.isEmpty { held.remove(heap.popMinimum().slot) }
            }
            let entries = heap.heap.entries
            for (i, entry) in entries.enumerated() {
                #expect(heap.heap.position(of: entry.slot) == i)
                if i > 0 { #expect(!entry.precedes(entries[(i - 1) / 2])) }
            }
            #expect(Set(entries.map(\.slot)) == held)
        }
    }
}

/// libCacheSim 0.3.5's `pqueue.c` as it is written: 1-based, `cmppri(next, curr)` is
/// `next < curr`, the right child only when strictly greater.
struct PQueueReference {
    var d: [(priority: Double, slot: Int32)] = [(0, -1)]
    var position: [Int32: Int] = [:]

    func contains(_ slot: Int32) -> Bool { position[slot] != nil }

    mutating func set(_ i: Int, _ node: (priority: Double, slot: Int32)) {
        d[i] = node
        position[node.slot] = i
    }

    mutating func bubbleUp(_ start: Int) {
        var i = start
        let moving = d[i]
        while i > 1 && d[i / 2].priority < moving.priority {
            set(i, d[i / 2])
            i /= 2
        }
        set(i, moving)
    }

    func maxChild(_ i: Int) -> Int {
        var child = 2 * i
        if child >= d.count { return 0 }
        if child + 1 < d.count && d[child].priority < d[child + 1].priority { child += 1 }
        return child
    }

    mutating func percolateDown(_ start: Int) {
        var i = start
        let moving = d[i]
        while true {
            let child = maxChild(i)
            guard child != 0, moving.priority < d[child].priority else { break }
            set(i, d[child])
            i = child
        }
        set(i, moving)
    }

    mutating func insert(_ slot: Int32, _ priority: Double) {
        d.append((priority, slot))
        position[slot] = d.count - 1
        bubbleUp(d.count - 1)
    }

    mutating func changePriority(_ slot: Int32, _ priority: Double) {
        guard let i = position[slot] else { return }
        let old = d[i].priority
        d[i].priority = priority
        if old < priority { bubbleUp(i) } else { percolateDown(i) }
    }

    mutating func remove(_ slot: Int32) {
        guard let i = position.removeValue(forKey: slot) else { return }
        let removed = d[i]
        let last = d.removeLast()
        guard i < d.count else { return }
        set(i, last)
        if removed.priority < last.priority { bubbleUp(i) } else { percolateDown(i) }
    }

    mutating func pop() -> Int32? {
        guard d.count > 1 else { return nil }
        let top = d[1]
        position[top.slot] = nil
        let last = d.removeLast()
        if d.count > 1 {
            set(1, last)
            percolateDown(1)
        }
        return top.slot
    }
}
