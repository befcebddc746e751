/**
 * The comparison operators of `output_numeric` and `output_json`: `value OP target`.
 */
import { COMPARISON_OPERATORS, type ComparisonOperator } from '../schema-constants.js';

/** The operator to use: `eq` when absent, undefined when it is not one of eq/ne/lt/le/gt/ge. */
export function resolveOperator(operator: unknown): ComparisonOperator | undefined {
  if (operator === undefined) return 'eq';
  return (COMPARISON_OPERATORS as readonly unknown[]).includes(operator) ? (operator as ComparisonOperator) : undefined;
}

/** `left OP right` on numbers. */
export function compareNumbers(left: number, operator: ComparisonOperator, right: number): boolean {
  switch (operator) {
    case 'eq':
      return left === right;
    case 'ne':
      return left !== right;
    case 'lt':
      return left < right;
    case 'le':
      return left <= right;
    case 'gt':
      return left > right;
    case 'ge':
      return left >= right;
  }
}

/** Message for an `operator:` value that is not a comparison operator. */
export function unknownOperatorMessage(operator: unknown): string {
  return `unknown operator ${JSON.stringify(operator)}: use one of ${COMPARISON_OPERATORS.join(', ')}`;
}
