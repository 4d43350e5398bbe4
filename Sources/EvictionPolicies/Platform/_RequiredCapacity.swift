extension CacheLimits {
    /// Validates `options` against `descriptor`'s parameters and these limits for it, once, and
    /// returns the capacity, which a policy that sizes its parts from it cannot do without.
    @usableFromInline
    func _requiredCapacity(for descriptor: PolicyDescriptor, options: PolicyOptions) throws(PolicyConfigurationError) -> Int {
        try options.validate(against: descriptor)
        try validate(for: descriptor)
        guard let capacity else { throw .missingLimit(.capacity, policy: descriptor.name) }
        return capacity
    }
}
