import { Fragment, type ReactNode } from "react";

/**
 * A translated sentence with parts that are elements: `Read <link>the terms</link> first.`
 * with `{ link: (text) => <a …>{text}</a> }`. The sentence stays whole for translators; tags
 * do not nest, and a tag with no renderer shows its text.
 */
export function rich(message: string, parts: Record<string, (text: string) => ReactNode>): ReactNode {
  const out: ReactNode[] = [];
  const tag = /<(\w+)>(.*?)<\/\1>/g;
  let last = 0;
  for (const match of message.matchAll(tag)) {
    const [whole, name = "", text = ""] = match;
    out.push(message.slice(last, match.index));
    const render = parts[name];
    out.push(<Fragment key={match.index}>{render ? render(text) : text}</Fragment>);
    last = match.index + whole.length;
  }
  out.push(message.slice(last));
  return out;
}
