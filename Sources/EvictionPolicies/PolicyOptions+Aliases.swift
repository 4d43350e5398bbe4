// Parameter aliases: a policy answers to libCacheSim's parameter names as well as its own, so a
// command copied from a libCacheSim paper (`fifo-size-ratio=0.1`) runs unchanged.

extension PolicyOptions {
    /// These options with every alias key (``PolicyParameter/aliases``) of `descriptor`'s
    /// parameters replaced by the parameter's own name. Keys that are neither are kept, so
    /// ``validate(against:)`` still reports them.
    ///
    /// - Throws: ``PolicyConfigurationError/invalidOption(_:value:expected:)`` when a parameter
    ///   is given twice, under two of its names.
    /// - Complexity: O(options × parameters × aliases).
    public func resolvingAliases(of descriptor: PolicyDescriptor) throws(PolicyConfigurationError) -> PolicyOptions {
        var resolved: [String: String] = [:]
        for key in values.keys.sorted() {
            let value = values[key] ?? ""
            let lowered = key.lowercased()
            let name = descriptor.parameters.first { $0.answers(to: lowered) }?.name ?? key
            if resolved[name] != nil {
                throw .invalidOption(key, value: value, expected: "one value for '\(name)', which is given under another name too")
            }
            resolved[name] = value
        }
        return PolicyOptions(resolved)
    }
}

extension PolicyParameter {
    /// Whether `key`, lowercased, names this parameter: its name or one of its aliases, in any case.
    public func answers(to key: String) -> Bool {
        name.lowercased() == key || aliases.contains { $0.lowercased() == key }
    }
}
