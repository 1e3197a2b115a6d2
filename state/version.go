package state

// VoxformVersion is the version of voxform recorded in every state file it writes.
const VoxformVersion = "0.1.0"
