/** A plain HTTP GET to 127.0.0.1 with a chosen Host header (the local servers' Host rule is tested with it). */
import { request } from 'node:http';

/** GET `path` on 127.0.0.1:`port` with this Host header: the status and the body. */
export function getWithHost(
  port: number,
  path: string,
  host: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
