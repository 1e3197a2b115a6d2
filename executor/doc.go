// Package executor runs a Plan: dependency order, parallel workers, rate
// limits, retries, atomic validated outputs, journaled state recording,
// interruption and resumption of remote batch jobs. It is the only package
// that calls speechapi.
package executor
