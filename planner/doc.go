// Package planner is pure: from the desired resources, the state and the
// hashes of files (all passed in) it computes a Plan: one action per address
// (create, replace, repair, move, resume, delete, no-op) with its reasons and
// its billable cost. It does no network I/O, no filesystem writes and reads
// no clock.
package planner
