export function App() {
  return <h1>Larder</h1>;
}
