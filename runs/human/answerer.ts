/** Who answers a human state: `user@host` of the person at this terminal. */
import { hostname, userInfo } from 'node:os';

export function answerer(): string {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    user = process.env.USER ?? process.env.USERNAME ?? 'unknown';
  }
  return `${user}@${hostname()}`;
}
