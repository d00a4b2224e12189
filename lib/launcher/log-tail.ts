/**
 * The last lines a process wrote, for error messages: its stdout/stderr (kept in memory, bounded)
 * and, when it logs to a file, the end of that file.
 */
import * as fs from 'node:fs';
import type { Readable } from 'node:stream';

export class OutputTail {
  private lines: string[] = [];
  private partial = '';

  constructor(private readonly maxLines = 40) {}

  follow(stream: Readable | null | undefined): void {
    if (!stream) return;
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => this.push(chunk));
  }

  push(chunk: string): void {
    const parts = (this.partial + chunk).split(/\r?\n/);
    this.partial = parts.pop() ?? '';
    for (const line of parts) if (line.trim() !== '') this.lines.push(line);
    if (this.lines.length > this.maxLines) this.lines.splice(0, this.lines.length - this.maxLines);
  }

  last(n: number): string[] {
    const all = this.partial.trim() !== '' ? [...this.lines, this.partial] : this.lines;
    return all.slice(-n);
  }
}

/** The last n lines of a file, reading at most the final 64 KiB; [] when it cannot be read. */
export function fileTail(file: string, n: number): string[] {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const size = fs.fstatSync(fd).size;
    const length = Math.min(size, 64 * 1024);
    const buf = Buffer.alloc(length);
    fs.readSync(fd, buf, 0, length, size - length);
    return buf
      .toString('utf8')
      .split(/\r?\n/)
      .filter((l) => l.trim() !== '')
      .slice(-n);
  } catch {
    return [];
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** "Last lines of its log (path):\n  ..." or a note that it wrote nothing. */
export function describeTail(output: OutputTail, logPath: string | undefined, n = 15): string {
  const fromFile = logPath ? fileTail(logPath, n) : [];
  const fromOutput = output.last(n);
  const sections: string[] = [];
  if (fromFile.length > 0) sections.push(`last lines of ${logPath}:\n${indent(fromFile)}`);
  if (fromOutput.length > 0) sections.push(`last lines of its output:\n${indent(fromOutput)}`);
  if (sections.length === 0)
    return logPath ? `it wrote nothing to ${logPath} or its output` : 'it wrote no output';
  return sections.join('\n');
}

function indent(lines: string[]): string {
  return lines.map((l) => `  ${l.length > 400 ? `${l.slice(0, 400)}...` : l}`).join('\n');
}
