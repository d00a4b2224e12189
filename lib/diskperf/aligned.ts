/**
 * Page-aligned buffers for direct I/O.
 *
 * O_DIRECT needs the memory address of each buffer aligned (to the device's logical block size,
 * 512 or 4096 bytes). Node Buffers come from malloc and are only 8- or 16-byte aligned, and Node
 * exposes no buffer address to JavaScript. WebAssembly memory is different: V8 allocates it with the
 * OS page allocator (mmap), so its first byte is page-aligned (4096 or more), and WebAssembly pages
 * are 64 KiB, so every 4096-byte slice of it is 4096-aligned too. Node's fs functions accept a Buffer
 * that views that memory and hand its address straight to pread/pwrite.
 * The test file probe (test-file.ts) confirms it at run time with a real O_DIRECT read.
 */
const WASM_PAGE = 64 * 1024;

interface WasmMemoryApi {
  Memory: new (descriptor: { initial: number; maximum?: number }) => { buffer: ArrayBuffer };
}

/** `count` buffers of `size` bytes each, every one starting at a 4096-aligned address. */
export function alignedBuffers(count: number, size: number): Buffer[] {
  if (size % 4096 !== 0)
    throw new Error(`aligned buffer size must be a multiple of 4096, got ${size}`);
  const pages = Math.max(1, Math.ceil((count * size) / WASM_PAGE));
  const wasm = (globalThis as unknown as { WebAssembly: WasmMemoryApi }).WebAssembly;
  const memory = new wasm.Memory({ initial: pages, maximum: pages });
  return Array.from({ length: count }, (_, i) => Buffer.from(memory.buffer, i * size, size));
}
