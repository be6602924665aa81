// Package sessionmgr holds the tests of internal/sessionmgr. They run
// every case against the memory and the Redis session stores, and the
// Redis store is redisstore's, a module the library's own go.mod does not
// require: so they live here, in the end-to-end module, and test
// internal/sessionmgr through its exported API as they did beside it.
package sessionmgr
