/**
 * The gRPC status codes ll-loop reads from Temporal's answers: numbers of the gRPC specification,
 * stable across SDK versions, named here so no module compares an error's `code` to a bare number.
 * Plain data: the modules that read them load no gRPC library.
 */
export const GRPC = {
  cancelled: 1,
  invalidArgument: 3,
  deadlineExceeded: 4,
  notFound: 5,
  alreadyExists: 6,
  permissionDenied: 7,
  resourceExhausted: 8,
  aborted: 10,
  unimplemented: 12,
  unavailable: 14,
  unauthenticated: 16,
} as const;
