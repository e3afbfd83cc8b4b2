#!/usr/bin/env bash
# Regenerates the Alluxio rows of crates/dupstream-filters/tests/conformance.csv from Alluxio's
# ConcurrentClockCuckooFilter (github.com/Alluxio/alluxio, Apache-2.0, package
# alluxio.client.file.cache.cuckoofilter, read at commit 0982684366d2d5f82925a46d670020a9a9487ca2).
#
# Usage: scripts/conformance-aged-cuckoo.sh SRC
#   SRC is a Java source root (alluxio/...) holding, from Alluxio's repository:
#   - alluxio/client/file/cache/cuckoofilter/: ConcurrentClockCuckooFilter, CuckooTable,
#     SimpleCuckooTable, SegmentedLock, CuckooUtils, TagPosition, CuckooStatus;
#   - alluxio/collections/: BitSet and BuiltinBitSet (a wrapper of java.util.BitSet).
#   Nothing of it is copied into this repository, and this script fetches nothing. The filter
#   must be the file at the commit above; the rows were made with the other classes as stored
#   at other commits (CuckooUtils 4886e23d, SimpleCuckooTable and SegmentedLock 26f55cb9,
#   TagPosition 3fbbb72a, CuckooStatus 43bd132e, BitSet and BuiltinBitSet 9cc0db7d, then in the
#   cuckoofilter package), SimpleCuckooTable's findTag(b1, b2, tag) and deleteTag(b, tag) renamed
#   findTagInBuckets and deleteTagFromBucket (the names and TagPosition results the filter at
#   0982684 calls), CuckooTable reduced to the methods the filter calls.
#   Needs javac and Guava (Debian: openjdk-17-jdk-headless, libguava-java).
#
# Stubs written here when SRC lacks them (none is read by a membership answer):
# alluxio.Constants (KB, MB: getSummary only), ScopeInfo and ScopeEncoder (every item in
# scope 0: the scope goes to its own table, read only for per-scope statistics),
# ClockCuckooFilter (the interface's method list) and SlidingWindowType (its three constants).
#
# The driver feeds the conformance key stream (the crate README, "Conformance") as Alluxio's
# shadow cache does: mightContainAndResetClock, then put on a miss, one operation counted per
# element, and aging() before every element whose index is a multiple of windowSize >> c.
set -euo pipefail
src=${1:?usage: $0 SRC}
src=$(cd "$src" && pwd)
guava=${GUAVA_JAR:-/usr/share/java/guava.jar}
commit=0982684366d2d5f82925a46d670020a9a9487ca2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pkg=alluxio/client/file/cache/cuckoofilter
mkdir -p "$tmp/stubs/$pkg"
stub() { # stub PATH: writes standard input to the stub tree unless SRC has PATH
    if [[ -e "$src/$1" ]]; then cat > /dev/null; else cat > "$tmp/stubs/$1"; fi
}
stub alluxio/Constants.java <<'JAVA'
package alluxio;
public final class Constants {
  public static final int KB = 1024;
  public static final int MB = KB * 1024;
}
JAVA
stub $pkg/ScopeInfo.java <<'JAVA'
package alluxio.client.file.cache.cuckoofilter;
public class ScopeInfo {
}
JAVA
stub $pkg/ScopeEncoder.java <<'JAVA'
package alluxio.client.file.cache.cuckoofilter;
public class ScopeEncoder {
  public ScopeEncoder(int bitsPerScope) {
  }
  public int encode(ScopeInfo scopeInfo) {
    return 0;
  }
}
JAVA
stub $pkg/SlidingWindowType.java <<'JAVA'
package alluxio.client.file.cache.cuckoofilter;
public enum SlidingWindowType {
  COUNT_BASED,
  TIME_BASED,
  NONE
}
JAVA
stub $pkg/ClockCuckooFilter.java <<'JAVA'
package alluxio.client.file.cache.cuckoofilter;
public interface ClockCuckooFilter<T> {
  boolean put(T item, int size, ScopeInfo scopeInfo);
  boolean mightContainAndResetClock(T item);
  boolean mightContain(T item);
  boolean delete(T item);
  void aging();
  double expectedFpp();
  long approximateElementCount();
  long approximateElementCount(ScopeInfo scopeInfo);
  long approximateElementSize();
  long approximateElementSize(ScopeInfo scopeInfo);
}
JAVA
cat > "$tmp/ConformanceDriver.java" <<'JAVA'
import alluxio.client.file.cache.cuckoofilter.ConcurrentClockCuckooFilter;
import alluxio.client.file.cache.cuckoofilter.ScopeInfo;
import alluxio.client.file.cache.cuckoofilter.SlidingWindowType;

import com.google.common.hash.Funnel;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;

/**
 * Feeds dupstream's conformance key stream to Alluxio's ConcurrentClockCuckooFilter as its shadow
 * cache does (mightContainAndResetClock, then put on a miss), with a count-based window, and
 * prints "negatives,positives,fp,fn" against the windowed truth.
 *
 * Arguments: clock bits c, fingerprint bits f, buckets n_b (a power of two), Alluxio's
 * windowSize (its aging period is windowSize >> c operations), the truth window W, and how each
 * key is handed to the filter: "key" (its 8 little-endian bytes, putLong) or "decimal" (its
 * decimal digits, putBytes).
 * Each element counts one operation (increaseOperationCount(1), after the element); aging() is
 * called before every element whose index is a positive multiple of windowSize >> c, so that
 * one sweep of every bucket completes per period (put's opportunistic aging does part of it).
 */
public final class ConformanceDriver {
  static final long N = 262144;
  static final long UNIVERSE = 65536;
  static final long SEED = 0x636f6e66L;

  static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** Lemire's reduction, (h * n) >> 64 unsigned. */
  static long reduce(long h, long n) {
    return Math.multiplyHigh(h, n) + ((h >> 63) & n) + ((n >> 63) & h);
  }

  public static void main(String[] args) {
    int c = Integer.parseInt(args[0]);
    int f = Integer.parseInt(args[1]);
    int buckets = Integer.parseInt(args[2]);
    long windowSize = Long.parseLong(args[3]);
    long window = Long.parseLong(args[4]);
    boolean decimal = args[5].equals("decimal");
    double load = 0.955; // the filter's default load factor
    // create() derives f = ceil(log2(1/fpp + 3) / load) and n_b = the power of two at or above
    // ceil(expected / (4 load)): choose fpp and expected insertions that give the asked f, n_b.
    double fpp = 1.0 / (Math.pow(2, load * (f - 0.5)) - 3);
    long expected = (long) Math.floor(buckets * 4 * load * 0.75);
    Funnel<Long> funnel = decimal
        ? (key, sink) -> sink.putBytes(Long.toString(key).getBytes(StandardCharsets.US_ASCII))
        : (key, sink) -> sink.putLong(key);
    ConcurrentClockCuckooFilter<Long> filter = ConcurrentClockCuckooFilter.create(funnel,
        expected, c, 1, 1, SlidingWindowType.COUNT_BASED, windowSize, fpp, load);
    if (filter.getBitsPerTag() != f || filter.getNumBuckets() != buckets) {
      throw new IllegalStateException("geometry " + filter.getSummary());
    }
    long period = windowSize >> c;
    ScopeInfo scope = new ScopeInfo();
    HashMap<Long, Long> last = new HashMap<>();
    long neg = 0, pos = 0, fp = 0, fn = 0, failed = 0;
    for (long i = 0; i < N; i++) {
      if (i > 0 && i % period == 0) {
        filter.aging();
      }
      long key = reduce(mix64(i + SEED), UNIVERSE);
      Long j = last.put(key, i);
      boolean truth = j != null && i - j <= window;
      boolean seen = filter.mightContainAndResetClock(key);
      if (!seen && !filter.put(key, 1, scope)) {
        failed++;
      }
      filter.increaseOperationCount(1);
      if (truth) {
        pos++;
        fn += seen ? 0 : 1;
      } else {
        neg++;
        fp += seen ? 1 : 0;
      }
    }
    System.err.println("failed puts " + failed + ", items at the end "
        + filter.approximateElementCount());
    System.out.println(neg + "," + pos + "," + fp + "," + fn);
  }
}
JAVA
mkdir "$tmp/classes"
javac -nowarn -cp "$guava" -d "$tmp/classes" \
    $(find "$src" "$tmp/stubs" -name '*.java') "$tmp/ConformanceDriver.java"
# c, f, n_b, Alluxio's windowSize (= 2^c·⌈W/M⌉: the same period as ours at W = 10,000), truth
# window, key bytes.
for geometry in "3 8 4096 11432 10000 decimal" "6 8 8192 10176 10335 decimal" \
    "6 6 8192 10176 10335 decimal" "6 8 8192 10176 10335 key"; do
    read -r c f nb size window bytes <<< "$geometry"
    counts=$(java -cp "$tmp/classes:$guava" ConformanceDriver "$c" "$f" "$nb" "$size" "$window" "$bytes")
    kb=key; [[ $bytes == decimal ]] && kb="decimal(key)"
    echo "Alluxio/alluxio,$commit,aged_cuckoo,clock_bits=$c;fingerprint_bits=$f;buckets=$nb;window_size=$size;window=10000,$kb,262144,$window,$counts"
done
