import Link from "next/link";

export default function NotFound() {
  return (
    <section className="card" aria-labelledby="nf-title">
      <h1 id="nf-title">Page not found</h1>
      <p>There is nothing at this address.</p>
      <Link className="button button-secondary" href="/">
        Go home
      </Link>
    </section>
  );
}
