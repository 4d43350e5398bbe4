/// Groups by access frequency, only for the frequencies in use: records in one pool, chained in
/// increasing frequency, with the lowest at hand, and an emptied record reused (libCacheSim's
/// chain of `freq_node`s; the O(1) LFU design of Shah, Mitra and Matani, 2010). What a group
/// holds is the policy's: ``LFUCache`` keeps a ``SlotList`` in each, LeCaR and Cacheus the ends
/// of their own links.
///
/// Why not an array indexed by frequency: it grows with the hottest key's count (a record per
/// hit), and finding the lowest group after it empties walks every empty frequency between.
///
/// - Complexity: every operation O(1).
@usableFromInline
struct _FrequencyChain<Group> {
    /// One frequency's group and its neighbours in the chain (-1 for none). A free record is
    /// chained through `higher`.
    @usableFromInline
    struct Record {
        @usableFromInline var frequency: Int
        @usableFromInline var group: Group
        @usableFromInline var lower: Int32 = -1
        @usableFromInline var higher: Int32 = -1

        @inlinable init(frequency: Int, group: Group) {
            self.frequency = frequency
            self.group = group
        }
    }

    @usableFromInline var records: ContiguousArray<Record> = []
    /// The first free record, or -1.
    @usableFromInline var free: Int32 = -1
    /// The record of the lowest frequency in use, or -1 when none is.
    @usableFromInline var lowest: Int32 = -1

    @inlinable init() {}

    /// The group of record `index`.
    @inlinable
    subscript(_ index: Int32) -> Group {
        @inline(__always) get { records[Int(index)].group }
        @inline(__always) _modify { yield &records[Int(index)].group }
    }

    /// The frequency of record `index`.
    @inlinable @inline(__always) func frequency(_ index: Int32) -> Int { records[Int(index)].frequency }

    /// The record of the next higher frequency in use after `index`, or -1.
    @inlinable @inline(__always) func higher(_ index: Int32) -> Int32 { records[Int(index)].higher }

    /// The record for `frequency` just above `below` (-1: the lowest): the one there if it has
    /// that frequency, else a new one holding `group`, chained in between.
    @inlinable @inline(__always)
    mutating func record(for frequency: Int, above below: Int32, making group: @autoclosure () -> Group) -> Int32 {
        let next = below >= 0 ? records[Int(below)].higher : lowest
        if next >= 0 && records[Int(next)].frequency == frequency { return next }
        return _make(Record(frequency: frequency, group: group()), between: below, and: next)
    }

    @inlinable
    mutating func _make(_ record: Record, between below: Int32, and above: Int32) -> Int32 {
        var record = record
        record.lower = below
        record.higher = above
        let index: Int32
        if free >= 0 {
            index = free
            free = records[Int(index)].higher
            records[Int(index)] = record
        } else {
            index = Int32(truncatingIfNeeded: records.count)
            records.append(record)
        }
        if below >= 0 { records[Int(below)].higher = index } else { lowest = index }
        if above >= 0 { records[Int(above)].lower = index }
        return index
    }

    /// Unchains record `index`, whose group emptied, and puts it on the free list.
    @inlinable
    mutating func release(_ index: Int32) {
        let lower = records[Int(index)].lower, higher = records[Int(index)].higher
        if lower >= 0 { records[Int(lower)].higher = higher } else { lowest = higher }
        if higher >= 0 { records[Int(higher)].lower = lower }
        records[Int(index)].lower = -1
        records[Int(index)].higher = free
        free = index
    }
}
