import { Fragment, type ComponentChildren } from 'preact';

/** A term and what it says of the thing shown; false leaves it out. */
export type Fact = readonly [term: string, value: ComponentChildren] | false;

/** Facts about one thing as a definition list (`dl.facts`), each term followed by its value. */
export function Facts(props: { facts: Fact[]; class?: string }) {
  return (
    <dl class={props.class ? `facts ${props.class}` : 'facts'}>
      {props.facts.map(
        (fact) =>
          fact && (
            <Fragment key={fact[0]}>
              <dt>{fact[0]}</dt>
              <dd>{fact[1]}</dd>
            </Fragment>
          ),
      )}
    </dl>
  );
}
