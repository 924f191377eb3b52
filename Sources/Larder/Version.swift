import CLarder

/// The version of the Larder library.
public let larderVersion = String(cString: lar_version(nil, nil, nil))
