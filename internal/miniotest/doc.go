// Package miniotest runs a real MinIO server for tests of S3 code (Start)
// and for the benchmark harness (Run): no mock, the same server voxform's
// users can point it at. The minio binary is found through $VOXFORM_MINIO,
// then <repo>/.tools/bin/minio (built by ./scripts/servers.sh), then PATH.
// A test or benchmark that needs it and cannot find it fails, saying how
// to build it: it never skips.
package miniotest
