@testable import EvictionPolicies

/// The keys of `list`, newest (head) first.
func listKeys<Value>(_ list: SlotList, _ store: SlotArena<Int, Value>) -> [Int] {
    var keys: [Int] = []
    var slot = list.head
    while slot >= 0 {
        keys.append(store.key(slot))
        slot = store.next(slot)
    }
    return keys
}

/// Sum of `cost` over `keys`.
func sumCost(_ keys: [Int], _ cost: [Int: Int]) -> Int {
    keys.reduce(0) { $0 + (cost[$1] ?? 0) }
}
