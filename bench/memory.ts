/** Peak memory of this process while something runs, sampled on a timer and at the end. */
export interface MemoryPeak {
  /** Before the measured work began. */
  baselineRssBytes: number;
  baselineHeapUsedBytes: number;
  peakRssBytes: number;
  peakHeapUsedBytes: number;
  peakHeapTotalBytes: number;
  samples: number;
}

export interface MemorySampler {
  /** Takes a sample now (call it at step boundaries too: a short peak between timer ticks counts). */
  sample(): void;
  stop(): MemoryPeak;
}

export function sampleMemory(intervalMs = 10): MemorySampler {
  const baseline = process.memoryUsage();
  const peak: MemoryPeak = {
    baselineRssBytes: baseline.rss,
    baselineHeapUsedBytes: baseline.heapUsed,
    peakRssBytes: baseline.rss,
    peakHeapUsedBytes: baseline.heapUsed,
    peakHeapTotalBytes: baseline.heapTotal,
    samples: 1,
  };
  const sample = () => {
    const usage = process.memoryUsage();
    peak.peakRssBytes = Math.max(peak.peakRssBytes, usage.rss);
    peak.peakHeapUsedBytes = Math.max(peak.peakHeapUsedBytes, usage.heapUsed);
    peak.peakHeapTotalBytes = Math.max(peak.peakHeapTotalBytes, usage.heapTotal);
    peak.samples++;
  };
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    sample,
    stop() {
      clearInterval(timer);
      sample();
      return { ...peak };
    },
  };
}
