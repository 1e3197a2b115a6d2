// Package miniotest runs a real MinIO server for tests of S3 code: no
// mock, the same server voxform's users can point it at. The minio binary
// is found through $VOXFORM_MINIO, then <repo>/.tools/bin/minio (built by
// ./scripts/servers.sh), then PATH. A test that needs it and cannot find
// it fails, saying how to build it: it never skips.
package miniotest
