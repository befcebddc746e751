/**
 * A loop whose one action runs until the file `held.go` appears in its directory: a run that
 * stays open (holding its checkout's scope) until the test lets it go.
 */
export const HELD_LOOP = `name: held
description: waits for held.go
initial: wait
states:
  wait:
    action: "while [ ! -e held.go ]; do sleep 0.05; done"
    timeout: 600
    next: done
  done:
    terminal: true
`;
