package redisstore

// OwnerTag exposes ownerTag to the tests of the key layout.
var OwnerTag = ownerTag
