package rmqrebalance

/*
#include "rmq_go.h"
*/
import "C"

// Version is this package's version; scripts/lib/check-versions.sh keeps it equal to the Cargo
// workspace's, and LibraryVersion must equal it at run time.
const Version = "0.1.0"

// LibraryVersion is the version of the linked C library.
func LibraryVersion() string { return C.GoString(C.rmq_version()) }
