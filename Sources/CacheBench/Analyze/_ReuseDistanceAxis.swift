/// Reuse distances (the number of distinct other objects requested between two requests for
/// one object, i.e. the LRU stack distance minus one) in O(log objects) per request.
///
/// Each object's last request is a mark on a time axis; a Fenwick tree counts marks, so the
/// distinct objects requested since an object's previous request are the marks after its own.
/// When the axis fills, the live marks are renumbered 1...n in order (compaction), so the axis
/// stays within a small multiple of the number of objects: 4 bytes of tree and 4 of owner per
/// position, about 16 bytes per object in all.
struct _ReuseDistanceAxis {
    private var tree: ContiguousArray<Int32> = [0]
    private var owner: ContiguousArray<Int32> = [-1]           // object index at each position, or -1
    private var next = 1                                       // the next free position
    private var live = 0
    private(set) var positions: ContiguousArray<Int32> = []    // by object index; 0 = never requested

    /// Records a request for object `object` (indices are dense, 0...); returns its reuse
    /// distance, or nil on its first request.
    mutating func request(_ object: Int) -> Int? {
        if object >= positions.count { positions.append(contentsOf: repeatElement(0, count: object - positions.count + 1)) }
        if next >= tree.count { compact() }
        let previous = Int(positions[object])
        var distance: Int?
        if previous > 0 {
            distance = live - prefix(previous)
            add(previous, -1)
            owner[previous] = -1
        } else {
            live += 1
        }
        add(next, 1)
        owner[next] = Int32(object)
        positions[object] = Int32(next)
        next += 1
        return distance
    }

    private func prefix(_ position: Int) -> Int {
        var sum = 0, i = position
        while i > 0 { sum += Int(tree[i]); i &= i - 1 }
        return sum
    }

    private mutating func add(_ position: Int, _ delta: Int32) {
        var i = position
        while i < tree.count { tree[i] &+= delta; i += i & -i }
    }

    /// Renumbers the live marks 1...live in order and rebuilds the tree in linear time.
    private mutating func compact() {
        let length = max(1024, 2 * live + 1)
        var newOwner = ContiguousArray<Int32>(repeating: -1, count: length + 1)
        var n = 0
        for p in 1..<next where owner[p] >= 0 {
            n += 1
            newOwner[n] = owner[p]
            positions[Int(owner[p])] = Int32(n)
        }
        var newTree = ContiguousArray<Int32>(repeating: 0, count: length + 1)
        for p in 1...length {
            if p <= n { newTree[p] += 1 }
            let parent = p + (p & -p)
            if parent <= length { newTree[parent] += newTree[p] }
        }
        tree = newTree
        owner = newOwner
        next = n + 1
    }
}
