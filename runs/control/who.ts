/** Who a person at this command line is, as runs record it: `user@host`. */
import { hostname, userInfo } from 'node:os';

/** `user@host` (`LL_USER` overrides the user name, e.g. in CI or a shared account). */
export function whoAmI(env: NodeJS.ProcessEnv = process.env): string {
  let user = env.LL_USER?.trim() || env.USER || env.USERNAME || '';
  if (!user) {
    try {
      user = userInfo().username;
    } catch {
      user = 'unknown';
    }
  }
  return `${user}@${hostname() || 'localhost'}`;
}
