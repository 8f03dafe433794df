/** A page whose place in the navigation is kept for a later release. */
export function ComingPage(props: { title: string }) {
  return (
    <section class="page">
      <h1>{props.title}</h1>
      <p class="muted">
        {props.title}{" "}
        arrives in a later Herald release. Its place in the navigation is kept so nothing moves when
        it does.
      </p>
    </section>
  );
}
