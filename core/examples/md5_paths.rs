//! Prints the MD5 paths this CPU can run, one per line, scalar first and the best last; the
//! test command runs the conformance vectors once on each (`RMQ_REBALANCE_MD5=<path>`).

use rocketmq_rebalance::md5_batch::Md5Path;

fn main() {
    for path in Md5Path::available() {
        println!("{}", path.name());
    }
}
